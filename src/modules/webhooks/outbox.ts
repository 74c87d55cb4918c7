import { createHash } from 'node:crypto';
import { newId, nowIso } from '../../db/columns';
import type { Db } from '../../db/database';
import type { ChangeOutbox } from '../../db/write';
import { wantsEvent, webhookEventsOf, type WebhookEvent, type WebhookEventType } from '../../domain/webhooks';
import { organizationOwning } from '../organizations/repo';
import { listeningEndpoints } from './endpoints-repo';
import { insertMessageOnce, insertMessages, type NewMessage } from './messages-repo';

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
      byWorkshop.set(event.workshopId, await organizationOwning(tx, event.workshopId));
  return byWorkshop;
}

/**
 * One message per event whose organization has an enabled endpoint listening to its type, in the
 * events' order; none for the rest (most organizations have no endpoint: a read, no write).
 */
async function messagesOf(
  tx: Db,
  events: readonly WebhookEvent[],
  timestamp: string,
  idFor: () => string = newMessageId,
): Promise<NewMessage[]> {
  const organizations = await organizationsOf(tx, events);
  const organizationIds = [...new Set([...organizations.values()].filter((id): id is string => !!id))];
  if (organizationIds.length === 0) return [];
  const endpoints = await listeningEndpoints(tx, organizationIds);
  const messages: NewMessage[] = [];
  for (const event of events) {
    const organizationId = organizations.get(event.workshopId);
    const heard = endpoints.some(
      (endpoint) => endpoint.organizationId === organizationId && wantsEvent(endpoint.events, event.type),
    );
    if (!organizationId || !heard) continue;
    messages.push({
      id: idFor(),
      organizationId,
      lane: event.workshopId,
      eventType: event.type,
      body: deliveryBody(event.type, timestamp, event.data),
      createdAt: timestamp,
    });
  }
  return messages;
}

/**
 * Queues an event found outside a logged change (`participation.completed`) once per `key`,
 * whichever instances find it: the message's id is made from the key. True when queued.
 */
export async function queueEventOnce(tx: Db, event: WebhookEvent, key: string): Promise<boolean> {
  const id = () => `msg_${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
  const [message] = await messagesOf(tx, [event], nowIso(), id);
  return message ? insertMessageOnce(tx, message) : false;
}

/**
 * The webhook outbox: a message per event, written in the transaction of the change it tells of;
 * the sender expands each into deliveries to the endpoints listening (`expandMessages`), so a
 * change costs one row however many endpoints hear of it.
 */
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
      const messages = await messagesOf(tx, found, events[0]!.createdAt);
      if (messages.length === 0) return;
      await insertMessages(tx, messages);
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
