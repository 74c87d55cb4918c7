import type { Db } from '../../db/database';
import { authorsHiddenIn, visibleCardAuthors, type CardAuthors } from '../access/visibility';
import type { AppDeps } from '../../deps';
import type { Page } from '../../http/pagination';
import { isFacilitator, seesAllRatings, seesAllVotes } from '../access/rules';
import type { WorkshopAccess } from '../../domain/permissions';
import { loadAccess } from '../access/load';
import type { Caller } from '../../domain/permissions';
import { isWorkshopAction, type WorkshopAction, type WorkshopEvent } from '../../domain/events';
import { deletedAmong } from '../users/repo';
import { userIdsNamedIn, withoutDeletedUsers } from '../../domain/deleted-users';
import { toEvent, type EventOutput, type EventRow } from './schemas';
import { actionCountsSeen, eventPage, eventRowsAfter, type LogView } from './repo';

/**
 * What the caller may see of the log, under the display prefs of the current step and its private
 * writing (changes about other participants' cards are left out).
 */
function logViewOf(access: WorkshopAccess, cardAuthors: CardAuthors): LogView {
  const onlyOwn: Array<'vote' | 'rating'> = [];
  if (!seesAllVotes(access)) onlyOwn.push('vote');
  if (!seesAllRatings(access)) onlyOwn.push('rating');
  return { cardAuthors, onlyOwn, facilitatorEvents: isFacilitator(access), userId: access.userId };
}

/**
 * How many events of `actions` logged in `[since, until)` each reader may see in the log (the rule
 * of `logViewOf`, under the current step), by action, keyed by the reader's user id. Readers the
 * rule treats alike (one role, every card, every vote and rating) share one count.
 */
export async function countsSeenBy(
  db: Db,
  workshopId: string,
  readers: readonly WorkshopAccess[],
  actions: readonly WorkshopAction[],
  window: { since: string; until: string },
): Promise<Map<string, Map<string, number>>> {
  const byView = new Map<string, Map<string, number>>();
  const seen = new Map<string, Map<string, number>>();
  for (const reader of readers) {
    const cardAuthors = await visibleCardAuthors(db, reader);
    const alike = cardAuthors === 'all' && seesAllVotes(reader) && seesAllRatings(reader);
    const view = alike ? reader.role : `${reader.role}\u0000${reader.userId}`;
    let counts = byView.get(view);
    if (!counts) {
      counts = await actionCountsSeen(db, workshopId, logViewOf(reader, cardAuthors), actions, window);
      byView.set(view, counts);
    }
    seen.set(reader.userId, counts);
  }
  return seen;
}

/**
 * Card payloads in the log carry the full score. A reader whose display prefs hide others' votes
 * gets `summary.score: null` there rather than totals they may not see.
 */
function withoutScores(output: EventOutput, row: EventRow): EventOutput {
  const event: WorkshopEvent | null = isLogged(row) ? row : null;
  if (!event || !('card' in event.change)) return output;
  const { card } = event.change;
  return { ...output, change: { ...event.change, card: { ...card, summary: { ...card.summary, score: null } } } };
}

/** A page of the workshop's log, newest first, with the total the filters and visibility leave. */
export async function listEvents(
  deps: AppDeps,
  workshopId: string,
  caller: Caller,
  query: { filters?: string[] | undefined; page: Page & { offset: number } },
): Promise<{ items: EventOutput[]; total: number }> {
  const { db } = deps.database;
  const access = await loadAccess(db, workshopId, caller);
  const { rows, total } = await eventPage(db, workshopId, logViewOf(access, await visibleCardAuthors(db, access)), {
    actions: query.filters,
    limit: query.page.perPage,
    offset: query.page.offset,
  });
  const hideScores = !seesAllVotes(access);
  const deleted = await deletedAmong(
    db,
    rows.flatMap((r) => [...userIdsNamedIn(r.event.change)]),
  );
  const items = rows.map((r) => {
    const output = toEvent(r.event, r.user, r.apiToken, deps.config);
    const scored = hideScores ? withoutScores(output, r.event) : output;
    // Something written anonymously (or a move of one's own anonymous card, `mover`): its author,
    // and the change's actor with it (the token they wrote through too), left out.
    const { value: change, hid } = authorsHiddenIn(access, scored.change);
    const shown = hid ? { ...scored, change, user: null, api_token: null } : scored;
    // Only then people whose accounts were deleted since: what they wrote anonymously stays so.
    return { ...shown, change: withoutDeletedUsers(shown.change, deleted) };
  });
  return { items, total };
}

/**
 * Whether a stored row records an action this version knows. Rows are written only by `record`
 * (`db/write.ts`), whose input is typed per action, so a known action's payload has its shape.
 */
function isLogged(row: EventRow): row is EventRow & WorkshopEvent {
  return isWorkshopAction(row.action);
}

/**
 * The workshop's events numbered above `afterSeq`, oldest first, at most `limit`: what a client
 * that saw `afterSeq` last has missed. Visibility filtering is the caller's concern; rows of actions
 * this version does not know are left out.
 */
export async function eventsAfter(
  db: Db,
  workshopId: string,
  afterSeq: number,
  limit: number,
): Promise<WorkshopEvent[]> {
  // A replay reads as the live event did: the token a change was made with is the log's to show;
  // but people whose accounts were deleted since are shown as deleted users.
  const rows = (await eventRowsAfter(db, workshopId, afterSeq, limit)).filter(isLogged);
  const deleted = await deletedAmong(
    db,
    rows.flatMap((r) => [r.userId ?? '', ...userIdsNamedIn(r.change)]),
  );
  return rows.map(({ apiTokenId: _token, ...event }) =>
    deleted.size === 0
      ? event
      : ({
          ...event,
          userId: event.userId !== null && deleted.has(event.userId) ? null : event.userId,
          change: withoutDeletedUsers(event.change, deleted),
        } as WorkshopEvent),
  );
}
