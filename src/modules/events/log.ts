import { and, asc, desc, eq, inArray, not, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { events, users } from '../../db/schema/index';
import type { AppDeps } from '../../deps';
import type { Page } from '../../http/pagination';
import { isFacilitator, seesAllRatings, seesAllVotes, type WorkshopAccess } from '../access/rules';
import { loadAccess } from '../access/load';
import { actionsVisibleAs, isWorkshopAction, type WorkshopEvent } from './changes';
import { toEvent, type EventOutput, type EventRow } from './schemas';

/**
 * Hides the events of one kind of feedback given by others: the owner is the feedback's `user_id`
 * (a facilitator may remove a participant's vote, and that stays the participant's event),
 * falling back to the actor.
 */
function onlyOwn(resource: 'vote' | 'rating', userId: string): SQL {
  const actions = actionsVisibleAs(resource);
  const owner = sql`coalesce(json_extract(${events.change}, ${`$.${resource}.user_id`}), ${events.userId})`;
  return sql`not (${inArray(events.action, actions)} and ${owner} is not ${userId})`;
}

/** What the caller may see of the log, under the display prefs of the current step. */
function visibleTo(access: WorkshopAccess): SQL[] {
  const conditions: SQL[] = [];
  if (!seesAllVotes(access)) conditions.push(onlyOwn('vote', access.userId));
  if (!seesAllRatings(access)) conditions.push(onlyOwn('rating', access.userId));
  if (!isFacilitator(access)) conditions.push(not(inArray(events.action, actionsVisibleAs('facilitators'))));
  return conditions;
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
export function listEvents(
  deps: AppDeps,
  workshopId: string,
  userId: string,
  query: { filters?: string[] | undefined; page: Page & { offset: number } },
): { items: EventOutput[]; total: number } {
  const { db } = deps.database;
  const access = loadAccess(db, workshopId, userId);
  const where = and(
    eq(events.workshopId, workshopId),
    query.filters ? inArray(events.action, query.filters) : undefined,
    ...visibleTo(access),
  );
  const total = db.select({ n: sql<number>`count(*)` }).from(events).where(where).get()!.n;
  const rows = db
    .select({ event: events, user: users })
    .from(events)
    .leftJoin(users, eq(users.id, events.userId))
    .where(where)
    .orderBy(desc(events.seq))
    .limit(query.page.perPage)
    .offset(query.page.offset)
    .all();
  const hideScores = !seesAllVotes(access);
  const items = rows.map((r) => {
    const output = toEvent(r.event, r.user, deps.config);
    return hideScores ? withoutScores(output, r.event) : output;
  });
  return { items, total };
}

const after = preparedPerDb((db: Db) =>
  db
    .select()
    .from(events)
    .where(and(eq(events.workshopId, sql.placeholder('workshopId')), sql`${events.seq} > ${sql.placeholder('afterSeq')}`))
    .orderBy(asc(events.seq))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/**
 * Whether a stored row records an action this version knows. Rows are written only by `record`
 * (`recorder.ts`), whose input is typed per action, so a known action's payload has its shape.
 */
function isLogged(row: EventRow): row is EventRow & WorkshopEvent {
  return isWorkshopAction(row.action);
}

/**
 * The workshop's events numbered above `afterSeq`, oldest first, at most `limit`: what a client
 * that saw `afterSeq` last has missed. Visibility filtering is the caller's concern; rows of actions
 * this version does not know are left out.
 */
export function eventsAfter(db: Db, workshopId: string, afterSeq: number, limit: number): WorkshopEvent[] {
  return after(db).all({ workshopId, afterSeq, limit }).filter(isLogged);
}
