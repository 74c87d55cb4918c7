/*
 * Webhook event types and what each logged change sends (docs/integrations.md#events). The data
 * is the change's own payload, the resources as the REST API answers them to a facilitator: the
 * organization's admins act as facilitators of its workshops, and anonymous authors are already
 * hidden in what the log keeps for facilitators.
 */
import type { WorkshopEvent } from './events';

export const WEBHOOK_EVENT_TYPES = [
  'ping',
  'workshop.created',
  'workshop.updated',
  'workshop.step_changed',
  'workshop.archived',
  'workshop.deleted',
  'member.joined',
  'export.succeeded',
  'export.failed',
  'participation.completed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** An event to send: its type and `data`, about `workshopId` (the lane it is delivered in). */
export interface WebhookEvent {
  type: WebhookEventType;
  workshopId: string;
  /** The workshop's owner when the payload names it (a removed workshop has no row left to ask). */
  ownerId: string | null;
  data: Record<string, unknown>;
}

/** The webhook events a logged change makes, in the order they happened; most changes make none. */
export function webhookEventsOf(event: WorkshopEvent): WebhookEvent[] {
  const on = (type: WebhookEventType, data: Record<string, unknown>, ownerId: string | null = null): WebhookEvent => ({
    type,
    workshopId: event.workshopId,
    ownerId,
    data,
  });
  switch (event.action) {
    case 'createWorkshop':
      return [on('workshop.created', { workshop: event.change.workshop }, event.change.workshop.owner.id)];
    case 'updateWorkshop': {
      const { workshop, changes } = event.change;
      const updated = on('workshop.updated', { workshop, changes }, workshop.owner.id);
      const state = changes.state as [unknown, unknown] | undefined;
      return state?.[1] === 'archived'
        ? [updated, on('workshop.archived', { workshop }, workshop.owner.id)]
        : [updated];
    }
    case 'changeStep':
      return [
        on(
          'workshop.step_changed',
          { workshop: event.change.workshop, step: event.change.step },
          event.change.workshop.owner.id,
        ),
      ];
    case 'removeWorkshop':
      return [on('workshop.deleted', { workshop: event.change.workshop }, event.change.workshop.owner.id)];
    case 'addMember':
      return [on('member.joined', { workshop_id: event.workshopId, member: event.change.member })];
    case 'updateExport': {
      const state = event.change.export.state;
      if (!('state' in event.change.changes) || state === 'pending') return [];
      return [
        on(state === 'success' ? 'export.succeeded' : 'export.failed', {
          workshop_id: event.workshopId,
          export: event.change.export,
        }),
      ];
    }
    default:
      return [];
  }
}

/** Whether an endpoint listening to `filters` wants `type`; a ping goes to the endpoint it tests only. */
export function wantsEvent(filters: readonly string[], type: WebhookEventType): boolean {
  return filters.includes(type) || (type !== 'ping' && filters.includes('*'));
}
