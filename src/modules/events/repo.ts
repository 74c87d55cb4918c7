import { and, asc, count, desc, eq, gte, inArray, isNull, lt, not, or, sql, type SQL } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { inList, jsonText } from '../../db/sql';
import type { CardAuthors } from '../access/visibility';
import { actionsVisibleAs, type WorkshopAction } from '../../domain/events';
import type { EventRow } from './schemas';

/** What a reader may see of the log (`log.ts` says it from their access). */
export interface LogView {
  /** Whose cards' changes the reader sees: 'all', or the authors listed. */
  cardAuthors: CardAuthors;
  /** The kinds of feedback of which the reader sees only their own events. */
  onlyOwn: ReadonlyArray<'vote' | 'rating'>;
  /** Whether the reader sees the events for facilitators' eyes. */
  facilitatorEvents: boolean;
  userId: string;
}

/**
 * Hides the events of one kind of feedback given by others: the owner is the feedback's `user_id`
 * (a facilitator may remove a participant's vote, and that stays the participant's event),
 * falling back to the actor.
 */
function onlyOwn(db: Db, resource: 'vote' | 'rating', userId: string): SQL {
  const { events } = tablesOf(db);
  const actions = actionsVisibleAs(resource);
  const owner = sql`coalesce(${jsonText(db, events.change, `${resource}.user_id`)}, ${events.userId})`;
  return sql`not (${inArray(events.action, actions)} and ${owner} is distinct from ${userId})`;
}

/** The conditions `view` puts on the log (changes about cards the reader may not see are left out). */
function visibleTo(db: Db, view: LogView): SQL[] {
  const { events } = tablesOf(db);
  const conditions: SQL[] = [];
  if (view.cardAuthors !== 'all')
    conditions.push(or(isNull(events.cardUserId), inList(db, events.cardUserId, [...view.cardAuthors]))!);
  for (const resource of view.onlyOwn) conditions.push(onlyOwn(db, resource, view.userId));
  if (!view.facilitatorEvents) conditions.push(not(inArray(events.action, actionsVisibleAs('facilitators'))));
  return conditions;
}

/** How many events of `actions` logged in `[since, until)` the view leaves, by action. */
export async function actionCountsSeen(
  db: Db,
  workshopId: string,
  view: LogView,
  actions: readonly WorkshopAction[],
  window: { since: string; until: string },
): Promise<Map<string, number>> {
  const { events } = tablesOf(db);
  const rows = await db
    .select({ action: events.action, n: count() })
    .from(events)
    .where(
      and(
        eq(events.workshopId, workshopId),
        gte(events.createdAt, window.since),
        lt(events.createdAt, window.until),
        inArray(events.action, [...actions]),
        ...visibleTo(db, view),
      ),
    )
    .groupBy(events.action);
  return new Map(rows.map((row) => [row.action, row.n]));
}

/**
 * A page of the workshop's log (of `actions` only, when given) as `view` leaves it, newest first,
 * each event with its actor's user row and the API token it was made with (null for a session's),
 * and how many events the whole log holds under them.
 */
export async function eventPage(
  db: Db,
  workshopId: string,
  view: LogView,
  query: { actions: string[] | undefined; limit: number; offset: number },
) {
  const { apiTokens, events, users } = tablesOf(db);
  const where = and(
    eq(events.workshopId, workshopId),
    query.actions ? inArray(events.action, query.actions) : undefined,
    ...visibleTo(db, view),
  );
  const total = (await db.select({ n: count() }).from(events).where(where))[0]!.n;
  const rows = await db
    .select({ event: events, user: users, apiToken: { id: apiTokens.id, name: apiTokens.name } })
    .from(events)
    .leftJoin(users, eq(users.id, events.userId))
    .leftJoin(apiTokens, eq(apiTokens.id, events.apiTokenId))
    .where(where)
    .orderBy(desc(events.seq))
    .limit(query.limit)
    .offset(query.offset);
  return { rows, total };
}

const after = preparedPerDb((db: Db) => {
  const { events } = tablesOf(db);
  return named(
    db
      .select()
      .from(events)
      .where(
        and(eq(events.workshopId, sql.placeholder('workshopId')), sql`${events.seq} > ${sql.placeholder('afterSeq')}`),
      )
      .orderBy(asc(events.seq))
      .limit(sql.placeholder('limit')),
    'events_after',
  );
});

/** The workshop's stored events numbered above `afterSeq`, oldest first, at most `limit`. */
export function eventRowsAfter(db: Db, workshopId: string, afterSeq: number, limit: number): Promise<EventRow[]> {
  return after(db).execute({ workshopId, afterSeq, limit });
}
