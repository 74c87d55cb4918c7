import { createHash } from 'node:crypto';
import { newId, nowIso } from '../../db/columns';
import type { Db } from '../../db/database';
import type { ChangeOutbox } from '../../db/write';
import { wantsEvent, webhookEventsOf, type WebhookEvent, type WebhookEventType } from '../../domain/webhooks';
import { listeningEndpoints, organizationOfWorkshop } from './endpoints-repo';
import { insertDeliveries, insertDeliveryOnce, type NewDelivery } from './repo';

/** The body every attempt of a delivery sends: `{type, timestamp, data}` (docs/integrations.md#events). */
export function deliveryBody(type: WebhookEventType, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp, data });
}

/** A `webhook-id`: unique to the event and endpoint, the same on every attempt. */
export const newMessageId = () => `msg_${newId()}`;

/** Each event's organization: named by the payload, else its workshop's owner (none for a person's own). */
async function organizationsOf(tx: Db, events: readonly WebhookEvent[]): Promise<Map<string, string | undefined>> {
  const byWorkshop = new Map<string, string | undefined>();
  for (const event of events) if (event.ownerId) byWorkshop.set(event.workshopId, event.ownerId);
  for (const event of events)
    if (!byWorkshop.has(event.workshopId))
      byWorkshop.set(event.workshopId, await organizationOfWorkshop(tx, event.workshopId));
  return byWorkshop;
}

/** One delivery per event and endpoint of its organization listening to its type, in the events' order. */
async function deliveriesOf(
  tx: Db,
  events: readonly WebhookEvent[],
  timestamp: string,
  idFor: (endpointId: string) => string = newMessageId,
): Promise<NewDelivery[]> {
  const organizations = await organizationsOf(tx, events);
  const organizationIds = [...new Set([...organizations.values()].filter((id): id is string => !!id))];
  if (organizationIds.length === 0) return [];
  const endpoints = await listeningEndpoints(tx, organizationIds);
  const rows: NewDelivery[] = [];
  for (const event of events) {
    const organizationId = organizations.get(event.workshopId);
    const body = deliveryBody(event.type, timestamp, event.data);
    for (const endpoint of endpoints) {
      if (endpoint.organizationId !== organizationId || !wantsEvent(endpoint.events, event.type)) continue;
      rows.push({
        id: idFor(endpoint.id),
        endpointId: endpoint.id,
        lane: event.workshopId,
        eventType: event.type,
        body,
        nextAttemptAt: timestamp,
      });
    }
  }
  return rows;
}

/**
 * Queues an event found outside a logged change (`participation.completed`) once per `key` and
 * endpoint, whichever instances find it: the delivery's id is made from the key. True when queued.
 */
export async function queueEventOnce(tx: Db, event: WebhookEvent, key: string): Promise<boolean> {
  const idFor = (endpointId: string) =>
    `msg_${createHash('sha256').update(`${endpointId}\n${key}`).digest('base64url').slice(0, 22)}`;
  let queued = false;
  for (const row of await deliveriesOf(tx, [event], nowIso(), idFor))
    queued = (await insertDeliveryOnce(tx, row)) || queued;
  return queued;
}

/** The webhook outbox: deliveries written in the transactions of the changes they tell of. */
export function webhookOutbox(): ChangeOutbox {
  const listeners = new Set<() => void>();
  const queued = () => {
    for (const listener of listeners) listener();
  };
  return {
    async stored(tx, events, changes) {
      // Most writes (cards, votes) tell no webhook anything: no statement for them.
      const found = events.flatMap(webhookEventsOf);
      if (found.length === 0) return;
      const rows = await deliveriesOf(tx, found, events[0]!.createdAt);
      if (rows.length === 0) return;
      await insertDeliveries(tx, rows);
      changes.afterCommit(queued);
    },
    queuedBy(changes) {
      changes.afterCommit(queued);
    },
    onQueued(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
