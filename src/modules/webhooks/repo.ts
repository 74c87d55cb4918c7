import { and, asc, count, desc, eq, inArray, isNull, lt, lte, notExists, or, sql } from 'drizzle-orm';
import { alias as sqliteAlias } from 'drizzle-orm/sqlite-core';
import { alias as pgAlias } from 'drizzle-orm/pg-core';
import { dialectOf, tablesOf, type Db, type Schema } from '../../db/database';
import { forUpdate } from '../../db/sql';

export type EndpointRow = Schema['webhookEndpoints']['$inferSelect'];
export type DeliveryRow = Schema['webhookDeliveries']['$inferSelect'];
export type NewDelivery = Pick<DeliveryRow, 'id' | 'endpointId' | 'lane' | 'eventType' | 'body' | 'nextAttemptAt'>;

/** A delivery taken to be sent, with what sending it needs of its endpoint. */
export interface TakenDelivery {
  seq: number;
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

export async function insertEndpoint(
  tx: Db,
  values: Pick<EndpointRow, 'organizationId' | 'url' | 'events' | 'description' | 'secret'>,
): Promise<EndpointRow> {
  const { webhookEndpoints } = tablesOf(tx);
  return (await tx.insert(webhookEndpoints).values(values).returning())[0]!;
}

export async function endpointsOf(db: Db, organizationId: string): Promise<EndpointRow[]> {
  const { webhookEndpoints: e } = tablesOf(db);
  return db.select().from(e).where(eq(e.organizationId, organizationId)).orderBy(asc(e.createdAt), asc(e.id));
}

export async function endpointOf(db: Db, organizationId: string, id: string): Promise<EndpointRow | undefined> {
  const { webhookEndpoints: e } = tablesOf(db);
  const [row] = await db
    .select()
    .from(e)
    .where(and(eq(e.organizationId, organizationId), eq(e.id, id)));
  return row;
}

export async function updateEndpoint(
  tx: Db,
  organizationId: string,
  id: string,
  set: Partial<Omit<EndpointRow, 'id' | 'organizationId' | 'createdAt'>>,
): Promise<EndpointRow | undefined> {
  const { webhookEndpoints: e } = tablesOf(tx);
  const [row] = await tx
    .update(e)
    .set(set)
    .where(and(eq(e.organizationId, organizationId), eq(e.id, id)))
    .returning();
  return row;
}

export async function deleteEndpoint(tx: Db, organizationId: string, id: string): Promise<boolean> {
  const { webhookEndpoints: e } = tablesOf(tx);
  const removed = await tx
    .delete(e)
    .where(and(eq(e.organizationId, organizationId), eq(e.id, id)))
    .returning({ id: e.id });
  return removed.length > 0;
}

/** The enabled endpoints of these organizations, with the events each listens to. */
export async function listeningEndpoints(
  tx: Db,
  organizationIds: readonly string[],
): Promise<Array<Pick<EndpointRow, 'id' | 'organizationId' | 'events'>>> {
  const { webhookEndpoints: e } = tablesOf(tx);
  return tx
    .select({ id: e.id, organizationId: e.organizationId, events: e.events })
    .from(e)
    .where(and(inArray(e.organizationId, [...organizationIds]), eq(e.enabled, true)));
}

/** The organization owning the workshop; undefined for a person's own workshop or one that is gone. */
export async function organizationOfWorkshop(tx: Db, workshopId: string): Promise<string | undefined> {
  const { workshops: w } = tablesOf(tx);
  const [row] = await tx
    .select({ ownerId: w.ownerId })
    .from(w)
    .where(and(eq(w.id, workshopId), eq(w.ownerType, 'organization')));
  return row?.ownerId;
}

export async function insertDeliveries(tx: Db, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(tablesOf(tx).webhookDeliveries).values([...rows]);
}

/** Inserts a delivery unless one with its id exists (an event found by several instances); true when inserted. */
export async function insertDeliveryOnce(tx: Db, row: NewDelivery): Promise<boolean> {
  const { webhookDeliveries: d } = tablesOf(tx);
  const inserted = await tx.insert(d).values(row).onConflictDoNothing().returning({ seq: d.seq });
  return inserted.length > 0;
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
    eq(d.status, 'pending'),
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
                  eq(before.status, 'pending'),
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
    .returning({ seq: d.seq, id: d.id, endpointId: d.endpointId, lane: d.lane, body: d.body, attempts: d.attempts });
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
      return { ...row, ...endpoint, claim };
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

/** Endpoints that answered: no longer failing. */
export async function clearFailing(tx: Db, endpointIds: readonly string[]): Promise<void> {
  const { webhookEndpoints: e } = tablesOf(tx);
  await tx
    .update(e)
    .set({ failingSince: null })
    .where(and(inArray(e.id, [...endpointIds]), sql`${e.failingSince} IS NOT NULL`));
}

/** Marks the endpoint failing since `at` unless it already was; answers since when it has been failing. */
export async function markFailing(
  tx: Db,
  endpointId: string,
  at: string,
): Promise<Pick<EndpointRow, 'failingSince' | 'enabled' | 'organizationId' | 'url'> | undefined> {
  const { webhookEndpoints: e } = tablesOf(tx);
  await tx
    .update(e)
    .set({ failingSince: at })
    .where(and(eq(e.id, endpointId), isNull(e.failingSince)));
  const [row] = await tx
    .select({ failingSince: e.failingSince, enabled: e.enabled, organizationId: e.organizationId, url: e.url })
    .from(e)
    .where(eq(e.id, endpointId));
  return row;
}

/** Disables the endpoint and gives up its pending deliveries (each can be sent again later); true when it was enabled. */
export async function disableEndpoint(tx: Db, endpointId: string, at: string): Promise<boolean> {
  const { webhookEndpoints: e, webhookDeliveries: d } = tablesOf(tx);
  const disabled = await tx
    .update(e)
    .set({ enabled: false, disabledAt: at, updatedAt: at })
    .where(and(eq(e.id, endpointId), eq(e.enabled, true)))
    .returning({ id: e.id });
  if (disabled.length === 0) return false;
  await tx
    .update(d)
    .set({ status: 'failed', lastError: 'The endpoint was disabled.', claimedUntil: null })
    .where(and(eq(d.endpointId, endpointId), eq(d.status, 'pending')));
  return true;
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
    .where(and(eq(d.endpointId, endpointId), eq(d.id, id)))
    .returning();
  return row;
}

/** The addresses of the organization's admins who have an account. */
export async function adminAddresses(tx: Db, organizationId: string): Promise<string[]> {
  const { organizationMembers: m, users: u } = tablesOf(tx);
  const rows = await tx
    .select({ email: u.email })
    .from(m)
    .innerJoin(u, eq(u.id, m.userId))
    .where(and(eq(m.organizationId, organizationId), eq(m.role, 'admin')));
  return rows.flatMap((row) => (row.email ? [row.email] : []));
}
