/*
 * The Account page's sessions: where the account is signed in (`GET /v1/user/me/sessions`), each
 * with how it was opened, when, when last used and from which browser, this one marked. One is
 * signed out (`DELETE /v1/user/me/sessions/:id`), or every other (`DELETE /v1/user/me/sessions`),
 * each asked first in words; it ends at once, live connections included.
 */
import { signal, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { ConfirmButton, Problem, useAction } from '../forms';
import { momentOf } from '../dates';
import { rich, t } from '../i18n';

type Session = {
  id: string;
  method: 'password' | 'oidc';
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
  current: boolean;
};

/** Bumped by what ends sessions elsewhere on the page (a password change): the list is read again. */
export const sessionsChanged = signal(0);

/** "Firefox on Windows" from a `User-Agent`; the whole string is shown beside it. */
export function browserOf(userAgent: string | null): string {
  if (!userAgent) return t('console.account.sessions.unknown_browser');
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : t('console.account.sessions.a_program');
  const system = /iPhone|iPad/.test(userAgent)
    ? 'iOS'
    : /Android/.test(userAgent)
      ? 'Android'
      : /Windows/.test(userAgent)
        ? 'Windows'
        : /Mac OS X/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : '';
  return system ? t('console.account.sessions.browser_on', { browser, system }) : browser;
}

const when = (iso: string) => <time dateTime={iso}>{momentOf(iso)}</time>;

export function Sessions() {
  const sessions = useSignal<Session[] | null>(null);
  const load = useAction();
  const ending = useAction();
  const told = useSignal('');
  const read = () =>
    load.run(async () => {
      sessions.value = await api.get('/v1/user/me/sessions');
    });
  useEffect(() => {
    void read();
  }, [sessionsChanged.value]);

  const end = (session: Session) =>
    ending.run(async () => {
      told.value = '';
      await api.delete('/v1/user/me/sessions/{id}', { params: { path: { id: session.id } } });
      told.value = t('console.account.sessions.ended', { browser: browserOf(session.user_agent) });
      await read();
    });
  const endOthers = (others: number) =>
    ending.run(async () => {
      told.value = '';
      await api.delete('/v1/user/me/sessions', {});
      told.value = t('console.account.sessions.others_ended', { count: others });
      await read();
    });

  const list = sessions.value;
  const others = list?.filter((session) => !session.current).length ?? 0;
  return (
    <>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? t('console.loading') : ''}</p>
      ) : (
        <ul class="account-list session-list">
          {list.map((session) => (
            <li key={session.id} class="account-row session-row" data-session={session.id}>
              <div class="account-row-text">
                <span class="account-row-name">{browserOf(session.user_agent)}</span>
                {session.current && <span class="badge">{t('console.account.sessions.this_browser')}</span>}
                <dl class="account-row-facts">
                  <div>
                    <dt>{t('console.account.sessions.signed_in')}</dt>
                    <dd>
                      {rich('console.account.sessions.signed_in_how', {
                        method: session.method,
                        moment: momentOf(session.created_at),
                        time: (moment) => <time dateTime={session.created_at}>{moment}</time>,
                      })}
                    </dd>
                  </div>
                  <div>
                    <dt>{t('console.common.last_used')}</dt>
                    <dd>{when(session.last_used_at)}</dd>
                  </div>
                </dl>
                {session.user_agent && <p class="meta session-agent">{session.user_agent}</p>}
              </div>
              {!session.current && (
                <ConfirmButton
                  label={t('console.sign_out')}
                  labelSuffix={` ${t('console.account.sessions.sign_out_which', {
                    browser: browserOf(session.user_agent),
                    moment: momentOf(session.created_at),
                  })}`}
                  class="danger"
                  question={t('console.account.sessions.sign_out_question', { browser: browserOf(session.user_agent) })}
                  confirm={t('console.account.sessions.sign_it_out')}
                  onConfirm={() => end(session)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {others > 0 && (
        <ConfirmButton
          label={t('console.account.sessions.sign_out_others')}
          class="danger"
          question={t('console.account.sessions.sign_out_others_question', { count: others })}
          confirm={t('console.account.sessions.sign_them_out')}
          onConfirm={() => endOthers(others)}
        />
      )}
      <p role="status" class="done">
        {told.value}
      </p>
      <Problem action={ending} />
    </>
  );
}
