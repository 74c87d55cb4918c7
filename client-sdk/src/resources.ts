/**
 * The service's resources by name, each read from the OpenAPI document's answer of the route that
 * returns it, so they change when the service does. The live event types (`generated/events.ts`)
 * are written in these names.
 */
import type { paths } from './generated/openapi.js';

/** The JSON body a route answers with on 200. */
type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

export type User = Answer<'/v1/user/me', 'get'>;
export type Workshop = Answer<'/v1/workshops/{id}', 'get'>;
/** What participants' screens should show (`workshop.view`, and each step's). */
export type View = Workshop['view'];
export type Step = Answer<'/v1/workshops/{workshop_id}/steps/{id}', 'get'>;
/** A card as lists and events carry it (a single card's GET may add `sections` and `criteria`). */
export type Card = Answer<'/v1/workshops/{workshop_id}/cards/{id}', 'put'>;
export type Comment = Answer<'/v1/workshops/{workshop_id}/cards/{card_id}/comments/{id}', 'get'>;
export type Vote = Answer<'/v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}', 'get'>;
export type Rating = Answer<'/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}', 'get'>;
export type Criterion = Answer<'/v1/workshops/{workshop_id}/criteria/{id}', 'get'>;
export type Section = Answer<'/v1/workshops/{workshop_id}/sections/{id}', 'get'>;
export type Item = Answer<'/v1/workshops/{workshop_id}/cards/{card_id}/items/{id}', 'get'>;
export type Attachment = Answer<'/v1/workshops/{workshop_id}/cards/{card_id}/attachments/{id}', 'get'>;
export type Timer = Answer<'/v1/workshops/{workshop_id}/timer', 'get'>;
export type Participation = Answer<'/v1/workshops/{workshop_id}/participation', 'get'>;
export type Notification = Answer<'/v1/user/me/notifications', 'get'>[number];
export type WorkshopLogEvent = Answer<'/v1/workshops/{workshop_id}/events', 'get'>[number];
export type Canvas = Answer<'/v1/workshops/{workshop_id}/canvas', 'get'>;

/** What an update changed: field → `[old, new]`. */
export type FieldChanges = Record<string, [unknown, unknown]>;

/** An export of the workshop; `url` downloads it without a token once `state` is `success`. */
export type Export = Answer<'/v1/workshops/{workshop_id}/exports/{id}', 'get'>;
