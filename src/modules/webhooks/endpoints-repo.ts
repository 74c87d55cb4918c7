import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';

/* The webhook endpoints of organizations, and what the sender records of them (docs/integrations.md#webhooks). */

export type EndpointRow = Schema['webhookEndpoints']['$inferSelect'];

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

/**
 * Puts `secret` in place and keeps the one it replaces (read in the same statement, so two
 * rotations at once each keep the secret they replaced, on any store) until `previousUntil`.
 */
export async function rotateSecret(
  tx: Db,
  organizationId: string,
  id: string,
  change: { secret: string; previousUntil: string; at: string },
): Promise<boolean> {
  const { webhookEndpoints: e } = tablesOf(tx);
  const rotated = await tx
    .update(e)
    .set({
      previousSecret: sql`${e.secret}`,
      secret: change.secret,
      previousSecretUntil: change.previousUntil,
      updatedAt: change.at,
    })
    .where(and(eq(e.organizationId, organizationId), eq(e.id, id)))
    .returning({ id: e.id });
  return rotated.length > 0;
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

/** The organization's admins who have an account: their address, and what a mail to them is written in. */
export async function adminAddresses(
  tx: Db,
  organizationId: string,
): Promise<{ email: string; name: string; locale: string; timeZone: string }[]> {
  const { organizationMembers: m, users: u } = tablesOf(tx);
  const rows = await tx
    .select({ email: u.email, name: u.name, locale: u.locale, timeZone: u.timeZone })
    .from(m)
    .innerJoin(u, eq(u.id, m.userId))
    .where(and(eq(m.organizationId, organizationId), eq(m.role, 'admin')));
  return rows.flatMap(({ email, ...admin }) => (email ? [{ email, ...admin }] : []));
}
