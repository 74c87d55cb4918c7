import { and, asc, eq, inArray, lt, lte, ne, notExists, sql } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { forUpdate } from '../../db/sql';
import { wantsEvent, type WebhookEventType } from '../../domain/webhooks';
import type { NewDelivery } from './repo';

/* The outbox of webhook messages (docs/integrations.md#retries-and-order): one row per event, expanded by the sender into deliveries. */

export type MessageRow = Schema['webhookMessages']['$inferSelect'];
export type NewMessage = Pick<MessageRow, 'id' | 'organizationId' | 'lane' | 'eventType' | 'body' | 'createdAt'> & {
  expanded?: boolean;
};

export async function insertMessages(tx: Db, rows: readonly NewMessage[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(tablesOf(tx).webhookMessages).values([...rows]);
}

/** Inserts a message unless one with its id exists (an event found by several instances); true when inserted. */
export async function insertMessageOnce(tx: Db, row: NewMessage): Promise<boolean> {
  const { webhookMessages: m } = tablesOf(tx);
  const inserted = await tx.insert(m).values(row).onConflictDoNothing().returning({ seq: m.seq });
  return inserted.length > 0;
}

/**
 * Turns up to `limit` messages not expanded yet, oldest first, into a delivery for each enabled
 * endpoint of their organization listening to their type, due at `at`, in the messages' order.
 * The messages are locked while it runs (PostgreSQL: waiting, not skipping), so expanders on
 * several instances take turns and a lane's deliveries are numbered in the order its events were.
 * Answers how many messages it expanded.
 */
export async function expandMessages(tx: Db, at: string, limit: number): Promise<number> {
  const { webhookMessages: m, webhookEndpoints: e, webhookDeliveries: d } = tablesOf(tx);
  const messages = await forUpdate(
    tx,
    tx
      .select({
        seq: m.seq,
        id: m.id,
        organizationId: m.organizationId,
        lane: m.lane,
        eventType: m.eventType,
        createdAt: m.createdAt,
      })
      .from(m)
      .where(sql`${m.expanded} = false`)
      .orderBy(asc(m.seq))
      .limit(limit),
  );
  if (messages.length === 0) return 0;
  const endpoints = await tx
    .select({ id: e.id, organizationId: e.organizationId, events: e.events })
    .from(e)
    .where(
      and(inArray(e.organizationId, [...new Set(messages.map((row) => row.organizationId))]), eq(e.enabled, true)),
    );
  const deliveries: NewDelivery[] = [];
  for (const message of messages)
    for (const endpoint of endpoints)
      if (
        endpoint.organizationId === message.organizationId &&
        wantsEvent(endpoint.events, message.eventType as WebhookEventType)
      )
        deliveries.push({
          messageId: message.id,
          endpointId: endpoint.id,
          lane: message.lane,
          eventType: message.eventType,
          nextAttemptAt: at,
          createdAt: message.createdAt,
        });
  if (deliveries.length > 0) await tx.insert(d).values(deliveries).onConflictDoNothing();
  await tx
    .update(m)
    .set({ expanded: true })
    .where(
      inArray(
        m.seq,
        messages.map((row) => row.seq),
      ),
    );
  return messages.length;
}

/** Whether a message waits to be expanded, or a delivery is due at `at` (whether taken or not): a read, no lock. */
export async function outboxHasWork(db: Db, at: string): Promise<boolean> {
  const { webhookMessages: m, webhookDeliveries: d } = tablesOf(db);
  const [message] = await db
    .select({ seq: m.seq })
    .from(m)
    .where(sql`${m.expanded} = false`)
    .limit(1);
  if (message) return true;
  const [due] = await db
    .select({ seq: d.seq })
    .from(d)
    .where(and(sql`${d.status} = 'pending'`, lte(d.nextAttemptAt, at)))
    .limit(1);
  return due !== undefined;
}

/** Removes the deliveries done (delivered or given up) before `before`, and the messages left with none. */
export async function forgetDoneBefore(tx: Db, before: string): Promise<void> {
  const { webhookMessages: m, webhookDeliveries: d } = tablesOf(tx);
  await tx.delete(d).where(and(ne(d.status, 'pending'), lt(d.createdAt, before)));
  await tx
    .delete(m)
    .where(
      and(
        eq(m.expanded, true),
        lt(m.createdAt, before),
        notExists(tx.select({ seq: d.seq }).from(d).where(eq(d.messageId, m.id))),
      ),
    );
}
