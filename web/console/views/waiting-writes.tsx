/*
 * The console's writes waiting for the server (outbox.ts), listed under the bar of every view
 * while there are any, and what the server refused once they reached it.
 * See docs/pages.md#writes-that-wait.
 */
import { lateRefusals, waitingWrites } from '../outbox';

export function WaitingWrites() {
  const waiting = waitingWrites.value;
  const refused = lateRefusals.value;
  return (
    <>
      <div class="waiting-writes" role="status">
        {waiting.length > 0 && (
          <section class="notice" aria-label="Waiting to be sent">
            <p>
              {waiting.length === 1 ? 'One change waits' : `${waiting.length} changes wait`} for the server: they are
              sent as soon as it answers again.
            </p>
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
          <p>Refused once it reached the server:</p>
          <ul>
            {refused.map((text, index) => (
              <li key={index}>{text}</li>
            ))}
          </ul>
          <button type="button" class="quiet" onClick={() => (lateRefusals.value = [])}>
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}
