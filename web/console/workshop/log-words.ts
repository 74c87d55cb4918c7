/*
 * Each change of the event log in words (the Log tab, log.tsx): who did what, in the reader's terms
 * rather than the API's names.
 */
import type { WorkshopLogEvent } from 'workshop-sdk';

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
export function describe(event: WorkshopLogEvent): string {
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
