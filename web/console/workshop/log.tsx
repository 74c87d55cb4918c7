/*
 * The Log tab: the workshop's event log (docs/api.md#events), newest first as the API lists it, a
 * page at a time with "more", each change said in words: who did what, when. New changes join the
 * top as they happen (the first page is read again after each one the live session reports).
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId } from 'preact/hooks';
import { ApiError, type WorkshopLogEvent } from 'workshop-sdk';
import { api, problemText } from '../api';
import { Panel, Problem, useAction } from '../forms';
import type { WorkshopScope } from './context';
import { describe } from './log-words';
import { momentOf } from '../dates';
import { t } from '../i18n';

const PER_PAGE = 30;

/** The kinds of change to narrow the log to (the API's `filters`: event names, comma-separated). */
const FILTERS: ReadonlyArray<readonly [kind: string, actions: string]> = [
  ['every', ''],
  ['agenda', 'changeStep,addStep,updateStep,removeStep,changeTimer'],
  ['cards', 'addCard,updateCard,removeCard,mergeCards,moveCards,importCards'],
  ['votes', 'addVote,updateVote,removeVote,removeVotes,addRating,updateRating,removeRating,removeRatings'],
  ['comments', 'addComment,removeComment,removeComments,addItem,updateItem,removeItem,removeItems'],
  ['people', 'addMember,updateMember,removeUser,addInvitation,updateInvitation,removeInvitation,addMessage'],
  ['exports', 'addExport,updateExport,removeExport'],
];

export function EventLog({ scope }: { scope: WorkshopScope }) {
  const filters = useSignal('');
  const events = useSignal<WorkshopLogEvent[] | null>(null);
  const total = useSignal(0);
  const pages = useSignal(0);
  const load = useAction();
  const id = useId();

  const read = async (page: number) => {
    const query = { page, per_page: PER_PAGE, ...(filters.value && { filters: filters.value }) };
    const { data, error, response } = await api.fetchClient.GET('/v1/workshops/{workshop_id}/events', {
      params: { path: { workshop_id: scope.id }, query },
    });
    if (!response.ok || !data) throw ApiError.fromResponse(response, error);
    return { page: data, count: Number(response.headers.get('x-total-count') ?? data.length) };
  };
  const more = () =>
    load.run(async () => {
      const asked = filters.value;
      const { page, count } = await read(pages.value + 1);
      if (asked !== filters.value) return;
      total.value = count;
      // Changes made since the first page moved the rest down: what shows already is not repeated.
      const seen = new Set((events.value ?? []).map((event) => event.id));
      events.value = [...(events.value ?? []), ...page.filter((event) => !seen.has(event.id))];
      pages.value += 1;
    });

  useEffect(() => {
    let closed = false;
    events.value = null;
    pages.value = 0;
    load.problem.value = '';
    // Read here rather than by `more`, which waits for nothing: a read for other filters may still be on its way.
    read(1).then(
      ({ page, count }) => {
        if (closed) return;
        events.value = page;
        total.value = count;
        pages.value = 1;
      },
      (err: unknown) => {
        if (!closed) load.problem.value = problemText(err);
      },
    );
    let reading = false;
    let again = false;
    // One read of the first page at a time; changes meanwhile ask for one more after it.
    const newest = async () => {
      if (reading) return void (again = true);
      reading = true;
      try {
        const top = events.value?.[0]?.seq ?? 0;
        const { page, count } = await read(1);
        if (closed) return;
        total.value = count;
        const fresh = page.filter((event) => event.seq > top);
        if (fresh.length > 0) events.value = [...fresh, ...(events.value ?? [])];
      } catch {
        // The next change reads again; "more" says what is wrong.
      } finally {
        reading = false;
        if (again) {
          again = false;
          void newest();
        }
      }
    };
    const stop = scope.onChange(() => {
      if (events.value !== null) void newest();
    });
    return () => {
      closed = true;
      stop();
    };
  }, [scope, filters.value]);

  const list = events.value;
  return (
    <Panel title={t('console.log.title')} class="log">
      <div class="log-filter">
        <label for={`${id}-filter`}>{t('console.log.show')}</label>
        <select
          id={`${id}-filter`}
          value={filters.value}
          onChange={(event) => (filters.value = event.currentTarget.value)}
        >
          {FILTERS.map(([kind, actions]) => (
            <option key={kind} value={actions}>
              {t('console.log.filter', { kind })}
            </option>
          ))}
        </select>
      </div>
      {list === null ? (
        <p role="status">{t('console.loading')}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('console.log.empty')}</p>
      ) : (
        <ol class="log-list">
          {list.map((event) => (
            <li key={event.id} class="log-entry" data-action={event.action}>
              <time dateTime={event.date}>{momentOf(event.date)}</time>
              <span class="log-words">{describe(event)}</span>
            </li>
          ))}
        </ol>
      )}
      <Problem action={load} />
      {list !== null && list.length < total.value && (
        <button type="button" disabled={load.busy.value} onClick={() => void more()}>
          {t('console.log.older')}
        </button>
      )}
    </Panel>
  );
}
