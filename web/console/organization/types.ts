/*
 * What the Organization page reads and sends, named from the SDK's types so they change with the
 * service; and the word lists the page shows (webhook events), checked against them.
 */
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

/** Each event with when it is sent (docs/integrations.md#events). */
export const EVENTS = [
  ['ping', 'a test, sent from this page'],
  ['workshop.created', 'a workshop is created'],
  ['workshop.updated', 'a workshop’s settings change'],
  ['workshop.step_changed', 'a workshop moves to another step'],
  ['workshop.archived', 'a workshop is archived'],
  ['workshop.deleted', 'a workshop is deleted'],
  ['member.joined', 'someone joins a workshop'],
  ['export.succeeded', 'an export is ready'],
  ['export.failed', 'an export failed'],
  ['participation.completed', 'everyone present has voted in the current step'],
] as const satisfies ReadonlyArray<readonly [WebhookEvent, string]>;
export type AllEventsListed = None<Exclude<WebhookEvent, (typeof EVENTS)[number][0]>>;

export const ROLE_NAMES: Record<Role, string> = { admin: 'admin', facilitator: 'facilitator' };
