/*
 * What the Organization page reads and sends, named from the SDK's types so they change with the
 * service; and the lists the page shows (webhook events, their words in the catalogs), checked against them.
 */
import type { MessageId } from 'i18n-messages';
import type { paths } from 'workshop-sdk';

type Ok<T> = T extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;
type JsonBody<T> = T extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;

export type Organization = Ok<paths['/v1/organizations/{id}']['get']>;
export type Member = Ok<paths['/v1/organizations/{id}/members']['get']>[number];
export type Role = Member['role'];
export type ApiToken = Ok<paths['/v1/organizations/{id}/api_tokens']['get']>[number];
export type Webhook = Ok<paths['/v1/organizations/{id}/webhooks']['get']>[number];
export type Delivery = Ok<paths['/v1/organizations/{id}/webhooks/{webhook_id}/deliveries']['get']>[number];
type EventFilter = JsonBody<paths['/v1/organizations/{id}/webhooks']['post']>['events'][number];
export type WebhookEvent = Exclude<EventFilter, '*'>;

/** Fails the type check when `T` is not empty: a scope or event the service knows and this page does not. */
type None<T extends never> = T;

/** Each event with the message saying when it is sent (docs/integrations.md#events). */
export const EVENTS = [
  ['ping', 'console.organization.webhooks.event.ping'],
  ['workshop.created', 'console.organization.webhooks.event.workshop_created'],
  ['workshop.updated', 'console.organization.webhooks.event.workshop_updated'],
  ['workshop.step_changed', 'console.organization.webhooks.event.workshop_step_changed'],
  ['workshop.archived', 'console.organization.webhooks.event.workshop_archived'],
  ['workshop.deleted', 'console.organization.webhooks.event.workshop_deleted'],
  ['member.joined', 'console.organization.webhooks.event.member_joined'],
  ['export.succeeded', 'console.organization.webhooks.event.export_succeeded'],
  ['export.failed', 'console.organization.webhooks.event.export_failed'],
  ['participation.completed', 'console.organization.webhooks.event.participation_completed'],
] as const satisfies ReadonlyArray<readonly [WebhookEvent, MessageId]>;
export type AllEventsListed = None<Exclude<WebhookEvent, (typeof EVENTS)[number][0]>>;
