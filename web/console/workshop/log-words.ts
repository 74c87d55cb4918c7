/*
 * Each change of the event log in words (the Log tab, log.tsx): who did what, in the reader's terms
 * rather than the API's names. Each kind of change is one message of the catalogs, whole
 * (docs/i18n.md#writing-a-message): what varies (the thing, its name, the format) is a select in it.
 */
import type { WorkshopLogEvent } from 'workshop-sdk';
import { pageIntl } from '../../shared/i18n';
import { t } from '../i18n';

type Resource = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
/** A name or text as the log quotes it: one line, cut short. */
const cut = (value: unknown): string => {
  const words = text(value).trim().replace(/\s+/g, ' ');
  return words.length > 80 ? `${words.slice(0, 79)}…` : words;
};
/** A name or text for a message's `{named, select, yes {… “{name}”} other {…}}`. */
const named = (value: unknown) => ({ named: cut(value) ? 'yes' : 'no', name: cut(value) });
/** A name in its sentence, or the message's own words for nobody named (`known: no`). */
const known = (value: unknown) => ({ known: text(value) ? 'yes' : 'no', name: text(value) });

/** Each field a change names, in the reader's words (the API's name, spaced, for one the catalog lacks). */
const fieldWords = (key: string): string => t('console.log.field', { field: key, spaced: key.replace(/_/g, ' ') });
/** "a", "a and b", "a, b and c": English without the serial comma, as the log always wrote it. */
const listed = (words: string[]): string => {
  const locale = pageIntl() === 'en' ? 'en-GB' : pageIntl();
  try {
    return new Intl.ListFormat(locale, { type: 'conjunction' }).format(words);
  } catch {
    return words.join(', ');
  }
};

/** One change in words: who, then what (in the reader's terms, not the API's). */
export function describe(event: WorkshopLogEvent): string {
  // No user: the service itself (an export expiring, the layout put back in order on load).
  const person =
    event.user?.name ??
    (event.action === 'removeExport' || event.action === 'moveCards'
      ? t('console.log.who.service')
      : t('console.log.who.someone'));
  // A change made with an API token: the token is named beside the account it acted as.
  const who = event.api_token ? t('console.log.who.through_token', { person, token: event.api_token.name }) : person;
  const change = (event.change ?? {}) as Resource;
  return special(event.action, who, change) ?? generic(event.action, who, change);
}

/** The changes whose words differ from "<who> <verb> the <thing>". */
function special(action: string, who: string, change: Resource): string | null {
  const count = (key: string) => (typeof change[key] === 'number' ? (change[key] as number) : 0);
  const of = (key: string) => (change[key] ?? {}) as Resource;
  const changed = (change.changes ?? {}) as Resource;
  switch (action) {
    case 'changeStep':
      return change.step
        ? t('console.log.step_changed', { who, ...named(of('step').name) })
        : t('console.log.step_none', { who });
    case 'changeTimer':
      return t('console.log.timer', { who, ...timerChange(change) });
    case 'moveCards': {
      const placements = Object.values(of('placements')) as Resource[];
      const onCanvas = placements.some((placement) => typeof placement.x === 'number');
      return t('console.log.cards_moved', { who, count: placements.length, place: onCanvas ? 'canvas' : 'board' });
    }
    case 'mergeCards':
      return t('console.log.cards_merged', { who, ...named(of('card').title) });
    case 'importCards':
      return t('console.log.cards_imported', { who, count: count('count') });
    case 'addVote':
      return t('console.log.voted', { who });
    case 'addRating':
      return t('console.log.rated', { who });
    case 'addComment':
      return t('console.log.commented', { who, ...named(of('comment').content) });
    case 'addMember':
      return t('console.log.joined', { who: text(of('member').name) || who });
    case 'updateMember':
      return t('console.log.member_role', { who, ...known(of('member').name), role: text(of('member').role) });
    case 'removeUser':
      return t('console.log.user_removed', known(of('user').name));
    case 'addMessage':
      return t('console.log.message_sent', { who, ...named(of('message').content) });
    case 'addInvitation':
      return t('console.log.invited', { who, ...known(of('invitation').email), role: text(of('invitation').role) });
    case 'updateInvitation':
      return t('console.log.invitation_changed', {
        who,
        ...known(of('invitation').email),
        change: 'state' in changed ? 'accepted' : 'sent',
        role: 'role' in changed ? text(of('invitation').role) : '',
      });
    case 'removeInvitation':
      return t('console.log.invitation_withdrawn', { who, ...known(of('invitation').email) });
    case 'addExport':
      return t('console.log.export_asked', { who, format: text(of('export').type) });
    case 'updateExport':
      return t('console.log.export_changed', {
        who,
        format: text(of('export').type),
        state: text(of('export').state),
      });
    case 'removeExport':
      return t('console.log.export_deleted', { who, format: text(of('export').type) });
  }
  const cleared = /^remove(Votes|Ratings|Comments|Items|Attachments)$/.exec(action);
  return cleared ? t('console.log.cleared', { who, what: cleared[1]!.slice(0, -1).toLowerCase() }) : null;
}

/** "<who> added the idea “Sunny”", "<who> changed the step “Vote”: its name and what participants may do". */
function generic(action: string, who: string, change: Resource): string {
  const [, verb = '', noun = ''] = /^([a-z]+)([A-Z].*)?$/.exec(action) ?? [];
  if (!noun) return t('console.log.unknown', { who, action });
  const key = noun.charAt(0).toLowerCase() + noun.slice(1);
  const resource = (change[key] ?? {}) as Resource;
  const values = {
    who,
    thing: key === 'card' ? (resource.type === 'cluster' ? 'cluster' : 'idea') : key,
    // A thing the catalog does not name: the API's, spaced ("the foo bar").
    noun: key.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`),
    ...named(resource.title ?? resource.name ?? resource.filename ?? resource.email),
  };
  if (verb === 'add') return t('console.log.added', values);
  if (verb === 'create') return t('console.log.created', values);
  if (verb === 'remove') return t('console.log.deleted', values);
  const fields = [...new Set(Object.keys((change.changes ?? {}) as Resource).map(fieldWords))];
  return t('console.log.changed', { ...values, fields: listed(fields), listed: fields.length > 0 ? 'yes' : 'no' });
}

/** What a timer change did, from its `changes` (`state: [before, after]`, `duration_s`, `ends_at`). */
function timerChange(change: Resource): { change: string; timed: string; minutes: number } {
  const changes = (change.changes ?? {}) as Record<string, [unknown, unknown] | undefined>;
  const timer = (change.timer ?? {}) as Resource;
  const [before, after] = changes.state ?? [timer.state, timer.state];
  const timed = typeof timer.duration_s === 'number';
  const minutes = timed ? Math.round((timer.duration_s as number) / 6) / 10 : 0;
  const said = (kind: string) => ({ change: kind, timed: timed ? 'yes' : 'no', minutes });
  if (after === 'running' && before === 'stopped') return said('started');
  if (after === 'running' && before === 'paused') return said('resumed');
  if (after === 'paused') return said('paused');
  if (after === 'stopped') return said('reset');
  if (changes.duration_s) return said('restarted');
  return said('other');
}
