import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { events, users } from '../../db/schema/index';
import type { AppDeps } from '../../deps';
import type { Page } from '../../http/pagination';
import { seesAllRatings, seesAllVotes, type WorkshopAccess } from '../access/rules';
import { loadAccess } from '../access/load';
import type { WorkshopEvent } from './bus';
import { toEvent, type EventOutput, type EventRow } from './schemas';

const VOTE_ACTIONS = ['addVote', 'updateVote', 'removeVote'];
const RATING_ACTIONS = ['addRating', 'updateRating', 'removeRating'];

/**
 * Hides the events of one kind of feedback given by others: the owner is the feedback's `user_id`
 * (a facilitator may remove a participant's vote, and that stays the participant's event),
 * falling back to the actor.
 */
function onlyOwn(actions: string[], resource: 'vote' | 'rating', userId: string): SQL {
  const owner = sql`coalesce(json_extract(${events.change}, ${`$.${resource}.user_id`}), ${events.userId})`;
  return sql`not (${inArray(events.action, actions)} and ${owner} is not ${userId})`;
}

/** What the caller may see of the log, under the display prefs of the current step. */
function visibleTo(access: WorkshopAccess): SQL[] {
  const conditions: SQL[] = [];
  if (!seesAllVotes(access)) conditions.push(onlyOwn(VOTE_ACTIONS, 'vote', access.userId));
  if (!seesAllRatings(access)) conditions.push(onlyOwn(RATING_ACTIONS, 'rating', access.userId));
  return conditions;
}

/**
 * Card payloads in the log carry the full score. A reader whose display prefs hide others' votes
 * gets `summary.score: null` there rather than totals they may not see.
 */
export function withoutScores<T extends { change: Record<string, unknown> }>(event: T): T {
  const card = event.change.card as { summary?: { score: number | null } } | undefined;
  if (!card?.summary) return event;
  return { ...event, change: { ...event.change, card: { ...card, summary: { ...card.summary, score: null } } } };
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
  const items = rows.map((r) => toEvent(r.event, r.user, deps.config));
  return { items: seesAllVotes(access) ? items : items.map(withoutScores), total };
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

function toWorkshopEvent(row: EventRow): WorkshopEvent {
  return {
    id: row.id,
    workshopId: row.workshopId,
    seq: row.seq,
    action: row.action,
    userId: row.userId,
    change: row.change,
    createdAt: row.createdAt,
  };
}

/**
 * The workshop's events numbered above `afterSeq`, oldest first, at most `limit`: what a client
 * that saw `afterSeq` last has missed. Visibility filtering is the caller's concern.
 */
export function eventsAfter(db: Db, workshopId: string, afterSeq: number, limit: number): WorkshopEvent[] {
  return after(db).all({ workshopId, afterSeq, limit }).map(toWorkshopEvent);
}
