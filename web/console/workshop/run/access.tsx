/*
 * How people get in, and the screen for the projector: the access code, the join link and its QR
 * code (`GET …/access_code`), each to copy, and a button opening `/screen/<id>` in a new tab,
 * signed in with this console's token, lent to that tab alone and never through its address
 * (../../../shared/screen-loan.ts, docs/pages.md#signing-in-on-the-screen).
 */
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { codeText } from '../../../shared/invite';
import { qrElement } from '../../../shared/qr';
import { lendTokenTo } from '../../../shared/screen-loan';
import { api } from '../../api';
import { Panel, Problem, useAction } from '../../forms';
import type { WorkshopScope } from '../context';
import { rich, t } from '../../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

export function Access({ scope }: { scope: WorkshopScope }) {
  const access = useSignal<{ access_code: string; join_url: string } | null>(null);
  const load = useAction();
  useEffect(() => {
    const read = () =>
      load.run(async () => {
        access.value = await api.get('/v1/workshops/{workshop_id}/access_code', {
          params: { path: { workshop_id: scope.id } },
        });
      });
    void read();
    // Reopening an archived workshop may give it a new code.
    return scope.onChange((action) => {
      if (action === 'workshop:updated') void read();
    });
  }, [scope]);

  return (
    <Panel title={t('console.run.access.title')} class="run-access">
      <Problem action={load} />
      {access.value ? (
        <Invitation code={access.value.access_code} link={access.value.join_url} />
      ) : (
        <p role="status">{t('console.loading')}</p>
      )}
      <OpenScreen id={scope.id} />
    </Panel>
  );
}

function Invitation(props: { code: string; link: string }) {
  const said = useSignal('');
  const qr = useRef<HTMLDivElement>(null);
  useEffect(() => {
    qr.current?.replaceChildren(qrElement(props.link, t('console.run.access.qr', { link: props.link })));
  }, [props.link]);
  const copy = async (text: string, what: 'code' | 'link') => {
    try {
      await navigator.clipboard.writeText(text);
      said.value = t('console.run.access.copied', { what });
    } catch {
      said.value = t('console.run.access.copy_refused', { what });
    }
  };
  return (
    <div class="run-invitation">
      <div class="run-qr" ref={qr} />
      <dl class="run-codes">
        <dt>{t('console.run.access.code')}</dt>
        <dd>
          <span class="run-code">{codeText(props.code)}</span>
          <button type="button" onClick={() => void copy(codeText(props.code), 'code')}>
            {rich('console.run.access.copy_code', { hidden })}
          </button>
        </dd>
        <dt>{t('console.run.access.link')}</dt>
        <dd>
          <span class="run-join-link">{props.link}</span>
          <button type="button" onClick={() => void copy(props.link, 'link')}>
            {rich('console.run.access.copy_link', { hidden })}
          </button>
        </dd>
      </dl>
      <p class="run-copied" role="status">
        {said.value}
      </p>
    </div>
  );
}

/**
 * Opens the screen in a new tab, signed in as this facilitator: the tab asks this page for the
 * token, which answers that tab only. The opener link is kept on purpose (no `noopener`): it is how
 * the two pages of this origin find each other, and the screen lets go of it once lent the token.
 */
function OpenScreen({ id }: { id: string }) {
  const open = () => {
    const screen = window.open(`/screen/${encodeURIComponent(id)}`, '_blank');
    // The client holds the token session.ts keeps (local storage, or memory where storage is refused).
    if (screen) lendTokenTo(screen, () => api.token);
  };
  return (
    <div class="run-open-screen">
      <button type="button" class="primary" onClick={open}>
        {t('console.run.access.open_screen')}
      </button>
      <p class="hint">{t('console.run.access.open_screen_hint')}</p>
    </div>
  );
}
