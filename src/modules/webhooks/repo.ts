import { and, asc, count, desc, eq, inArray, isNull, lt, lte, notExists, or, sql } from 'drizzle-orm';
import { alias as sqliteAlias } from 'drizzle-orm/sqlite-core';
import { alias as pgAlias } from 'drizzle-orm/pg-core';
import { dialectOf, tablesOf, type Db, type Schema } from '../../db/database';
import { forUpdate } from '../../db/sql';

export type DeliveryRow = Schema['webhookDeliveries']['$inferSelect'];
export type NewDelivery = Pick<
  DeliveryRow,
  'messageId' | 'endpointId' | 'lane' | 'eventType' | 'nextAttemptAt' | 'createdAt'
>;

/** A delivery taken to be sent, with what sending it needs of its endpoint. */
export interface TakenDelivery {
  seq: number;
  /** The message's id: the `webhook-id`. */
  id: string;
  endpointId: string;
  lane: string;
  body: string;
  /** Attempts recorded before this one. */
  attempts: number;
  claim: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: string | null;
}

export async function insertDeliveries(tx: Db, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(tablesOf(tx).webhookDeliveries).values([...rows]);
}

/**
 * Takes the deliveries due at `at` of up to `lanes` lanes (an endpoint and a workshop), under the
 * lease `claim`: each lane's first pending delivery, and up to `perLane` in all of the ones after
 * it, in order, so a lane's events go out one after the other in the order written. Senders on
 * several instances pass over rows another is taking (SKIP LOCKED): since another sender only
 * starts a lane at its first pending row, a lane is never split between two. A row whose lease
 * ran out (its sender died) is taken again. Attempts are counted when recorded.
 */
export async function takeDueDeliveries(
  tx: Db,
  at: string,
  claim: string,
  limits: { lanes: number; perLane: number },
): Promise<TakenDelivery[]> {
  const { webhookDeliveries: d, webhookEndpoints: e } = tablesOf(tx);
  const earlier = dialectOf(tx) === 'postgres' ? pgAlias(d as never, 'earlier') : sqliteAlias(d as never, 'earlier');
  const before = earlier as unknown as typeof d;
  const due = and(
    // Literal, not bound: the planner may then read the index kept of pending rows only.
    sql`${d.status} = 'pending'`,
    lte(d.nextAttemptAt, at),
    or(isNull(d.claimedUntil), lte(d.claimedUntil, at)),
  );
  const heads = await forUpdate(
    tx,
    tx
      .select({ seq: d.seq, endpointId: d.endpointId, lane: d.lane })
      .from(d)
      .where(
        and(
          due,
          inArray(d.endpointId, tx.select({ id: e.id }).from(e).where(eq(e.enabled, true))),
          notExists(
            tx
              .select({ one: sql`1` })
              .from(earlier as never)
              .where(
                and(
                  eq(before.endpointId, d.endpointId),
                  eq(before.lane, d.lane),
                  sql`${before.status} = 'pending'`,
                  lt(before.seq, d.seq),
                ),
              ),
          ),
        ),
      )
      .orderBy(asc(d.seq))
      .limit(limits.lanes),
    { skipLocked: true },
  );
  if (heads.length === 0) return [];
  const seqs = heads.map((head) => head.seq);
  if (limits.perLane > 1) {
    const laneOf = (row: { endpointId: string; lane: string }) => `${row.endpointId}\n${row.lane}`;
    const firstOf = new Map(heads.map((head) => [laneOf(head), head.seq]));
    // A superset (every lane of these endpoints with these workshops), cut to the taken lanes here.
    const followers = await forUpdate(
      tx,
      tx
        .select({ seq: d.seq, endpointId: d.endpointId, lane: d.lane })
        .from(d)
        .where(
          and(
            due,
            inArray(d.endpointId, [...new Set(heads.map((head) => head.endpointId))]),
            inArray(d.lane, [...new Set(heads.map((head) => head.lane))]),
          ),
        )
        .orderBy(asc(d.seq))
        .limit(limits.lanes * limits.perLane),
      { skipLocked: true },
    );
    const taken = new Map<string, number>();
    for (const row of followers) {
      const first = firstOf.get(laneOf(row));
      if (first === undefined || row.seq <= first) continue;
      const count = taken.get(laneOf(row)) ?? 1;
      if (count >= limits.perLane) continue;
      taken.set(laneOf(row), count + 1);
      seqs.push(row.seq);
    }
  }
  const claimed = await tx
    .update(d)
    .set({ claimedUntil: claim })
    .where(inArray(d.seq, seqs))
    .returning({ seq: d.seq, id: d.messageId, endpointId: d.endpointId, lane: d.lane, attempts: d.attempts });
  const { webhookMessages: m } = tablesOf(tx);
  const bodies = new Map(
    (
      await tx
        .select({ id: m.id, body: m.body })
        .from(m)
        .where(inArray(m.id, [...new Set(claimed.map((row) => row.id))]))
    ).map((row) => [row.id, row.body]),
  );
  const endpoints = await tx
    .select({
      id: e.id,
      url: e.url,
      secret: e.secret,
      previousSecret: e.previousSecret,
      previousSecretUntil: e.previousSecretUntil,
    })
    .from(e)
    .where(inArray(e.id, [...new Set(claimed.map((row) => row.endpointId))]));
  const byId = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint]));
  return claimed
    .sort((a, b) => a.seq - b.seq)
    .map((row) => {
      const { id: _endpointId, ...endpoint } = byId.get(row.endpointId)!;
      return { ...row, body: bodies.get(row.id)!, ...endpoint, claim };
    });
}

/** What an attempt came to, recorded while the row still holds this taking's claim. */
export interface AttemptRecord {
  seq: number;
  claim: string;
  status: 'pending' | 'succeeded' | 'failed';
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string;
}

export async function recordAttempt(tx: Db, record: AttemptRecord): Promise<boolean> {
  const { webhookDeliveries: d } = tablesOf(tx);
  const { seq, claim, ...set } = record;
  const updated = await tx
    .update(d)
    .set({ ...set, attempts: sql`${d.attempts} + 1`, claimedUntil: null })
    .where(and(eq(d.seq, seq), eq(d.claimedUntil, claim)))
    .returning({ seq: d.seq });
  return updated.length > 0;
}

/** Hands back deliveries taken and not tried (their lane stopped at a failure before them). */
export async function releaseDeliveries(
  tx: Db,
  taken: ReadonlyArray<Pick<TakenDelivery, 'seq' | 'claim'>>,
): Promise<void> {
  if (taken.length === 0) return;
  const { webhookDeliveries: d } = tablesOf(tx);
  await tx
    .update(d)
    .set({ claimedUntil: null })
    .where(
      and(
        inArray(
          d.seq,
          taken.map((row) => row.seq),
        ),
        eq(d.claimedUntil, taken[0]!.claim),
      ),
    );
}

export async function deliveriesOf(
  db: Db,
  endpointId: string,
  page: { offset: number; perPage: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const { webhookDeliveries: d } = tablesOf(db);
  const rows = await db
    .select()
    .from(d)
    .where(eq(d.endpointId, endpointId))
    .orderBy(desc(d.seq))
    .limit(page.perPage)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(d).where(eq(d.endpointId, endpointId));
  return { rows, total: total?.n ?? 0 };
}

/** Sends the delivery again: pending and due at `at`. */
export async function resendDelivery(
  tx: Db,
  endpointId: string,
  id: string,
  at: string,
): Promise<DeliveryRow | undefined> {
  const { webhookDeliveries: d } = tablesOf(tx);
  const [row] = await tx
    .update(d)
    .set({ status: 'pending', nextAttemptAt: at, claimedUntil: null })
    .where(and(eq(d.endpointId, endpointId), eq(d.messageId, id)))
    .returning();
  return row;
}
