/*
 * A secret the service shows once (an API token, a webhook's signing secret): set out with a copy
 * button and what to do with it, until the person says they have it. It is kept in this component
 * only, never stored, so leaving the page forgets it (docs/pages.md#an-organizations-settings,
 * docs/pages.md#your-account).
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId, useRef } from 'preact/hooks';
import { rich, t } from './i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

export function SecretOnce(props: { title: string; secret: string; hint: string; onDone: () => void }) {
  const said = useSignal('');
  const headingId = useId();
  const title = useRef<HTMLParagraphElement>(null);
  // Brought to the person's attention once, as it appears (a re-render must not move focus back here).
  useEffect(() => title.current?.focus(), [props.secret]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      said.value = t('console.secret.copied');
    } catch {
      said.value = t('console.secret.copy_refused');
    }
  };
  return (
    <div class="secret-once" role="group" aria-labelledby={headingId}>
      <p id={headingId} class="secret-title" tabIndex={-1} ref={title}>
        {props.title}
      </p>
      <p class="secret-row">
        <code class="secret-value">{props.secret}</code>
        <button type="button" onClick={() => void copy()}>
          {rich('console.secret.copy', { hidden })}
        </button>
        <span role="status" class="done secret-copied">
          {said.value}
        </span>
      </p>
      <p class="hint">{props.hint}</p>
      <button type="button" class="quiet" onClick={props.onDone}>
        {t('console.secret.done')}
      </button>
    </div>
  );
}
