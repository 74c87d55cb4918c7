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

const PER_PAGE = 30;

/** The kinds of change to narrow the log to (the API's `filters`: event names, comma-separated). */
const FILTERS: ReadonlyArray<readonly [label: string, actions: string]> = [
  ['Every change', ''],
  ['The agenda and the timer', 'changeStep,addStep,updateStep,removeStep,changeTimer'],
  ['Cards', 'addCard,updateCard,removeCard,mergeCards,moveCards,importCards'],
  ['Votes and ratings', 'addVote,updateVote,removeVote,removeVotes,addRating,updateRating,removeRating,removeRatings'],
  ['Comments and items', 'addComment,removeComment,removeComments,addItem,updateItem,removeItem,removeItems'],
  ['People', 'addMember,updateMember,removeUser,addInvitation,updateInvitation,removeInvitation,addMessage'],
  ['Exports', 'addExport,updateExport,removeExport'],
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
    <Panel title="What happened" class="log">
      <div class="log-filter">
        <label for={`${id}-filter`}>Show</label>
        <select
          id={`${id}-filter`}
          value={filters.value}
          onChange={(event) => (filters.value = event.currentTarget.value)}
        >
          {FILTERS.map(([label, actions]) => (
            <option key={label} value={actions}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {list === null ? (
        <p role="status">Loading…</p>
      ) : list.length === 0 ? (
        <p class="empty">Nothing is logged yet.</p>
      ) : (
        <ol class="log-list">
          {list.map((event) => (
            <li key={event.id} class="log-entry" data-action={event.action}>
              <time dateTime={event.date}>{new Date(event.date).toLocaleString()}</time>
              <span class="log-words">{describe(event)}</span>
            </li>
          ))}
        </ol>
      )}
      <Problem action={load} />
      {list !== null && list.length < total.value && (
        <button type="button" disabled={load.busy.value} onClick={() => void more()}>
          Show older changes
        </button>
      )}
    </Panel>
  );
}

type Resource = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const capitalized = (words: string): string => words.charAt(0).toUpperCase() + words.slice(1);
/** A quoted name or text, cut short: “Sunny days”. */
const quoted = (value: unknown): string => {
  const words = text(value).trim().replace(/\s+/g, ' ');
  return words ? ` “${words.length > 80 ? `${words.slice(0, 79)}…` : words}”` : '';
};
/** Each export format as a file, with its article ("an Excel file"). */
const FORMAT_NAMES: Record<string, string> = {
  pdf: 'a PDF file',
  docx: 'a Word document',
  xlsx: 'an Excel file',
  csv: 'a CSV file',
  native: 'a workshop file',
};
const formatName = (type: unknown): string => FORMAT_NAMES[text(type)] ?? 'an export';
/** "the Excel file" from "an Excel file". */
const theFormat = (type: unknown): string => formatName(type).replace(/^an? /, 'the ');
/** What a changed member of a resource is, in the reader's terms (the API's names otherwise, spaced). */
const FIELD_WORDS: Record<string, string> = {
  parent: 'cluster',
  parent_id: 'cluster',
  cluster_id: 'cluster',
  position: 'place',
  content: 'text',
  aside: 'place aside',
  prefs: 'what participants may do',
  view: 'display',
  state: 'state',
  vote_limit: 'vote budget',
  daily_mail: 'daily mail',
  change_step_notifications: 'step notifications',
  force_sync: 'setting that participants follow the facilitator’s view',
  allow_guests: 'setting that guests may join',
  duration_s: 'duration',
  ends_at: 'end',
  remaining_s: 'time left',
  value: 'value',
  align: 'alignment',
  url: 'address',
  cols: 'columns',
};
const fieldWords = (key: string): string => FIELD_WORDS[key] ?? key.replace(/_/g, ' ');
/** "a", "a and b", "a, b and c". */
const listed = (words: readonly string[]): string =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
const plural = (count: number, one: string, many = `${one}s`) => (count === 1 ? `a ${one}` : `${count} ${many}`);
const asRole = (invitation: Resource) => (invitation.role === 'facilitator' ? ' as a co-facilitator' : '');
const VERBS: Record<string, string> = {
  add: 'added',
  create: 'created',
  update: 'changed',
  change: 'changed',
  remove: 'deleted',
};
const NOUNS: Record<string, string> = {
  criterium: 'criterion',
  illustration: "a step's illustration",
  zone: 'a zone of the canvas',
};

/** One change in words: who, then what (in the reader's terms, not the API's). */
function describe(event: WorkshopLogEvent): string {
  // No user: the service itself (an export expiring, the layout put back in order on load).
  const person =
    event.user?.name ?? (event.action === 'removeExport' || event.action === 'moveCards' ? 'The service' : 'Someone');
  // A change made with an API token: the token is named beside the account it acted as.
  const who = event.api_token ? `${person} (through the API token “${event.api_token.name}”)` : person;
  const change = (event.change ?? {}) as Resource;
  return `${special(event.action, who, change) ?? generic(event.action, who, change)}.`;
}

/** The changes whose words differ from "<who> <verb> the <thing>". */
function special(action: string, who: string, change: Resource): string | null {
  const count = (key: string) => (typeof change[key] === 'number' ? (change[key] as number) : 0);
  const of = (key: string) => (change[key] ?? {}) as Resource;
  switch (action) {
    case 'changeStep':
      return change.step ? `${who} moved to the step${quoted(of('step').name)}` : `${who} left no step current`;
    case 'changeTimer':
      return `${who} ${timerWords(change)}`;
    case 'moveCards': {
      const placements = Object.values(of('placements')) as Resource[];
      const onCanvas = placements.some((placement) => typeof placement.x === 'number');
      return `${who} moved ${plural(placements.length, 'card')} on the ${onCanvas ? 'canvas' : 'board'}`;
    }
    case 'mergeCards':
      return `${who} merged cards into${quoted(of('card').title) || ' one'}`;
    case 'importCards':
      return `${who} imported ${plural(count('count'), 'card')}`;
    case 'addVote':
      return `${who} voted`;
    case 'addRating':
      return `${who} rated a card`;
    case 'addComment':
      return `${who} commented${quoted(of('comment').content)}`;
    case 'addMember':
      return `${text(of('member').name) || who} joined the workshop`;
    case 'updateMember':
      return `${who} made ${text(of('member').name) || 'a member'} a ${text(of('member').role) || 'member'}`;
    case 'removeUser':
      return `An account that took part was deleted: what it wrote stays, by ${text(of('user').name) || 'Deleted user'}`;
    case 'addMessage':
      return `${who} sent a message${quoted(of('message').content)}`;
    case 'addInvitation':
      return `${who} invited ${text(of('invitation').email) || 'someone'}${asRole(of('invitation'))}`;
    case 'updateInvitation': {
      const email = text(of('invitation').email) || 'someone';
      const changed = (change.changes ?? {}) as Resource;
      if ('state' in changed) return `${who} accepted the invitation sent to ${email}`;
      return `${who} sent the invitation to ${email} again${'role' in changed ? asRole(of('invitation')) : ''}`;
    }
    case 'removeInvitation':
      return `${who} withdrew the invitation sent to ${text(of('invitation').email) || 'someone'}`;
    case 'addExport':
      return `${who} asked for ${formatName(of('export').type)}`;
    case 'updateExport': {
      const made = of('export');
      const state = made.state === 'success' ? 'is ready' : made.state === 'failed' ? 'failed' : 'changed';
      return `${capitalized(theFormat(made.type))} ${who} asked for ${state}`;
    }
    case 'removeExport':
      return `${who} deleted ${theFormat(of('export').type)}`;
  }
  const cleared = /^remove(Votes|Ratings|Comments|Items|Attachments)$/.exec(action);
  return cleared ? `${who} cleared every ${cleared[1]!.slice(0, -1).toLowerCase()} of the workshop` : null;
}

/** "<who> added the idea “Sunny”", "<who> changed the step “Vote”: its name and what participants may do". */
function generic(action: string, who: string, change: Resource): string {
  const [, verb = '', noun = ''] = /^([a-z]+)([A-Z].*)?$/.exec(action) ?? [];
  const key = noun.charAt(0).toLowerCase() + noun.slice(1);
  const resource = (change[key] ?? {}) as Resource;
  const thing =
    key === 'card'
      ? `the ${resource.type === 'cluster' ? 'cluster' : 'idea'}`
      : (NOUNS[key] ?? `the ${key.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)}`);
  const name = quoted(resource.title ?? resource.name ?? resource.filename ?? resource.email);
  const fields = [...new Set(Object.keys((change.changes ?? {}) as Resource).map(fieldWords))];
  const which = fields.length > 0 ? `: its ${listed(fields)}` : '';
  if (!noun) return `${who} did ${action}`;
  return `${who} ${VERBS[verb] ?? `${verb}d`} ${thing}${name}${which}`;
}

/** What a timer change did, from its `changes` (`state: [before, after]`, `duration_s`, `ends_at`). */
function timerWords(change: Resource): string {
  const changes = (change.changes ?? {}) as Record<string, [unknown, unknown] | undefined>;
  const timer = (change.timer ?? {}) as Resource;
  const [before, after] = changes.state ?? [timer.state, timer.state];
  const minutes = typeof timer.duration_s === 'number' ? ` for ${Math.round(timer.duration_s / 6) / 10} min` : '';
  if (after === 'running' && before === 'stopped') return `started the timer${minutes}`;
  if (after === 'running' && before === 'paused') return 'resumed the timer';
  if (after === 'paused') return 'paused the timer';
  if (after === 'stopped') return 'reset the timer';
  if (changes.duration_s) return `restarted the timer${minutes}`;
  return 'changed the time left on the timer';
}
