/*
 * `/workshops/<id>`: one workshop's console. Its facilitators get the tabs (run, agenda, board,
 * canvas, people, exports, log), all fed by one live session of the SDK; anyone else who is a member goes
 * on to the participant page (`/w/<id>`), as the workshop's `public_url` promises.
 */
import { effect, signal, useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError, type Step } from 'workshop-sdk';
import { keepToken } from '../../shared/participant-token';
import { api, problemText } from '../api';
import { Link, location$, navigate } from '../router';
import { sendWaiting } from '../outbox';
import { forget, me } from '../session';
import { sessionEnded, signedInAgain } from '../session-end';
import { NotOpen } from '../not-open';
import { Agenda } from './agenda';
import { Board } from './board';
import { useOwnVotes } from './board/own-votes';
import { CanvasTab } from './canvas';
import { TABS, type TabName, type WorkshopScope } from './context';
import { Exports } from './exports';
import { EventLog } from './log';
import { People } from './people';
import { relayWorkshop, type Relay } from './relay';
import { Run } from './run';
import { t } from '../i18n';

const LIVE_EVENTS = [
  'workshop:updated',
  'step:changed',
  'view:changed',
  'timer:changed',
  'card:created',
  'card:updated',
  'card:deleted',
  'comment:created',
  'export:updated',
  'export:deleted',
] as const;

export function WorkshopConsole(props: { id: string }) {
  const scope = useSignal<WorkshopScope | null>(null);
  const problem = useSignal('');
  /** Counts the attempts to open: one more after a sign-in that ended a session met while opening. */
  const attempt = useSignal(0);
  useEffect(() => {
    let closed = false;
    let opened: WorkshopScope | null = null;
    let stopWaiting = () => {};
    open(props.id).then(
      (found) => {
        if (closed) return found?.live.close();
        if (found) scope.value = opened = found;
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 401) {
          if (!sessionEnded.value) return forget();
          // The session ended under a page already open: the dialog asks for the password, then this opens.
          const seen = signedInAgain.peek();
          stopWaiting = effect(() => {
            if (signedInAgain.value > seen && !closed) queueMicrotask(() => attempt.value++);
          });
          return;
        }
        problem.value =
          err instanceof ApiError && err.status === 404 ? t('console.workshop.not_found') : problemText(err);
      },
    );
    return () => {
      closed = true;
      stopWaiting();
      opened?.live.close();
    };
  }, [props.id, attempt.value]);

  if (problem.value || !scope.value)
    return (
      <NotOpen title={t('console.workshop.title')} problem={problem.value} opening={t('console.workshop.opening')} />
    );
  return <Tabs scope={scope.value} />;
}

/** Opens the live session for a facilitator; sends anyone else to the participant page (and gives null). */
async function open(id: string): Promise<WorkshopScope | null> {
  // The workshop's answer names the caller's role (docs/api.md#workshops): no call is made to be refused.
  const { response, error } = await api.fetchClient.GET('/v1/workshops/{id}', { params: { path: { id } } });
  if (!response.ok) throw ApiError.fromResponse(response, error);
  if (response.headers.get('x-workshop-role') !== 'facilitator') {
    // The participant page keeps a token per workshop: this account's goes with the person.
    if (api.token) keepToken(id, api.token);
    location.replace(`/w/${encodeURIComponent(id)}`);
    return null;
  }
  const live = await relayWorkshop(api, id);
  const listeners = new Set<(action: string) => void>();
  const tell = (action: string) => listeners.forEach((listener) => listener(action));
  const state = signal(live.state);
  live.subscribe((next) => {
    // The connection back: what waits for the server is sent now rather than at its next try.
    if (next.status === 'live' && state.value.status !== 'live') sendWaiting();
    state.value = next;
    // The live connection refused (the session revoked or expired): the console asks to sign in again.
    if (next.status === 'closed' && next.error?.code === 'unauthenticated') sessionEnded.value = true;
  });
  const steps = signal<Step[]>([]);
  const readSteps = async () => {
    steps.value = await api.get('/v1/workshops/{workshop_id}/steps', { params: { path: { workshop_id: id } } });
  };
  await readSteps();
  live.on('workshop:event', (payload) => tell(payload.action));
  for (const event of LIVE_EVENTS) live.on(event, () => tell(event));
  // The agenda is read again after a change that may touch it (a step written, moved or deleted).
  let pending = false;
  listeners.add((action) => {
    if (pending || !/step|workshop:updated|Workshop/i.test(action)) return;
    pending = true;
    queueMicrotask(() => {
      pending = false;
      readSteps().catch(() => undefined);
    });
  });
  return {
    id,
    live,
    state,
    steps,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function Tabs({ scope }: { scope: WorkshopScope }) {
  // One's own votes, kept for the workshop's whole visit: both boards (Run, Board) vote from them.
  const own = useOwnVotes(scope, me.value?.id);
  // Signed in again after the session ended: the live connection opens again with the new token.
  const again = signedInAgain.value;
  const openedAt = useRef(again);
  useEffect(() => {
    if (again > openedAt.current) (scope.live as Relay).reopen().catch(() => undefined);
  }, [again]);
  const asked = location$.value.query.get('tab');
  const tab: TabName = TABS.some((name) => name === asked) ? (asked as TabName) : 'run';
  const { workshop, status } = scope.state.value;
  const choose = (name: TabName) =>
    navigate(`/workshops/${encodeURIComponent(scope.id)}?tab=${name}`, { replace: true });
  return (
    <main class="workshop" data-live={status}>
      <header class="workshop-head">
        <p class="crumbs">
          <Link href="/">{t('console.title')}</Link>
        </p>
        <h1>{workshop.title}</h1>
        {workshop.state === 'archived' && <p class="notice">{t('console.workshop.archived')}</p>}
        {status === 'reconnecting' && (
          <p class="notice" role="status">
            {t('console.workshop.reconnecting')}
          </p>
        )}
      </header>
      <nav class="tabs" aria-label={t('console.workshop.title')}>
        {TABS.map((name) => (
          <a
            key={name}
            href={`/workshops/${encodeURIComponent(scope.id)}?tab=${name}`}
            aria-current={tab === name ? 'page' : undefined}
            onClick={(event) => {
              event.preventDefault();
              choose(name);
            }}
          >
            {t('console.workshop.tab', { tab: name })}
          </a>
        ))}
      </nav>
      <div class="tab" data-tab={tab}>
        {tab === 'run' && <Run scope={scope} own={own} />}
        {tab === 'agenda' && <Agenda scope={scope} />}
        {tab === 'board' && <Board scope={scope} own={own} />}
        {tab === 'canvas' && <CanvasTab scope={scope} />}
        {tab === 'people' && <People scope={scope} />}
        {tab === 'exports' && <Exports scope={scope} />}
        {tab === 'log' && <EventLog scope={scope} />}
      </div>
    </main>
  );
}
