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
import { count } from './calls';
import { momentOf } from '../dates';

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
  if (!userAgent) return 'An unknown browser';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : 'A program';
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
  return system ? `${browser} on ${system}` : browser;
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
      told.value = `${browserOf(session.user_agent)} is signed out.`;
      await read();
    });
  const endOthers = (others: number) =>
    ending.run(async () => {
      told.value = '';
      await api.delete('/v1/user/me/sessions', {});
      told.value = `${count(others, 'other session')} signed out; this one stays.`;
      await read();
    });

  const list = sessions.value;
  const others = list?.filter((session) => !session.current).length ?? 0;
  return (
    <>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? 'Loading…' : ''}</p>
      ) : (
        <ul class="account-list session-list">
          {list.map((session) => (
            <li key={session.id} class="account-row session-row" data-session={session.id}>
              <div class="account-row-text">
                <span class="account-row-name">{browserOf(session.user_agent)}</span>
                {session.current && <span class="badge">This browser</span>}
                <dl class="account-row-facts">
                  <div>
                    <dt>Signed in</dt>
                    <dd>
                      {session.method === 'oidc' ? 'through the provider' : 'with the password'},{' '}
                      {when(session.created_at)}
                    </dd>
                  </div>
                  <div>
                    <dt>Last used</dt>
                    <dd>{when(session.last_used_at)}</dd>
                  </div>
                </dl>
                {session.user_agent && <p class="meta session-agent">{session.user_agent}</p>}
              </div>
              {!session.current && (
                <ConfirmButton
                  label="Sign out"
                  labelSuffix={` ${browserOf(session.user_agent)}, signed in ${momentOf(session.created_at)}`}
                  class="danger"
                  question={`Sign out ${browserOf(session.user_agent)}? It stops working at once, open pages included.`}
                  confirm="Sign it out"
                  onConfirm={() => end(session)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {others > 0 && (
        <ConfirmButton
          label="Sign out everywhere else"
          class="danger"
          question={`Sign out the ${count(others, 'other session')}? Only this browser stays signed in.`}
          confirm="Sign them out"
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
