/*
 * The console's writes waiting for the server (outbox.ts), listed under the bar of every view
 * while there are any, and what the server refused once they reached it.
 * See docs/pages.md#writes-that-wait.
 */
import { t } from '../i18n';
import { lateRefusals, waitingWrites } from '../outbox';

export function WaitingWrites() {
  const waiting = waitingWrites.value;
  const refused = lateRefusals.value;
  return (
    <>
      <div class="waiting-writes" role="status">
        {waiting.length > 0 && (
          <section class="notice" aria-label={t('console.waiting.label')}>
            <p>{t('console.waiting.text', { count: waiting.length })}</p>
            <ul>
              {waiting.map((item) => (
                <li key={item.key}>{item.label}</li>
              ))}
            </ul>
          </section>
        )}
      </div>
      {refused.length > 0 && (
        <div class="problem notice" role="alert">
          <p>{t('console.waiting.refused')}</p>
          <ul>
            {refused.map((text, index) => (
              <li key={index}>{text}</li>
            ))}
          </ul>
          <button type="button" class="quiet" onClick={() => (lateRefusals.value = [])}>
            {t('console.waiting.dismiss')}
          </button>
        </div>
      )}
    </>
  );
}
