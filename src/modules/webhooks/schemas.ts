import * as v from 'valibot';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks';
import { PageQuery } from '../../http/pagination';
import { said } from '../../i18n/valibot';

/** An http(s) URL without credentials; whether its address is public is checked when sending. */
const EndpointUrl = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(2000),
  v.url(said('error.validation.http_url')),
  v.check((raw) => {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  }, said('error.validation.http_url_no_credentials')),
);

const EventFilters = v.pipe(
  v.array(
    v.picklist(
      [...WEBHOOK_EVENT_TYPES, '*'] as const,
      said('error.validation.any_or_one_of', { options: WEBHOOK_EVENT_TYPES.join(', ') }),
    ),
  ),
  v.minLength(1),
  v.maxLength(WEBHOOK_EVENT_TYPES.length + 1),
);

const Description = v.pipe(v.string(), v.trim(), v.maxLength(500));

export const CreateWebhookInput = v.object({
  url: EndpointUrl,
  events: EventFilters,
  description: v.optional(Description, ''),
});
export type CreateWebhookInput = v.InferOutput<typeof CreateWebhookInput>;

export const UpdateWebhookInput = v.object({
  url: v.optional(EndpointUrl),
  events: v.optional(EventFilters),
  description: v.optional(Description),
  enabled: v.optional(v.boolean()),
});
export type UpdateWebhookInput = v.InferOutput<typeof UpdateWebhookInput>;

/** An endpoint as lists show it: never its secret, which only the answers that make one hold. */
export const WebhookOutput = v.object({
  id: v.string(),
  url: v.string(),
  events: v.array(v.string()),
  description: v.string(),
  enabled: v.boolean(),
  /** When the sender disabled it after failing for `WEBHOOK_DISABLE_AFTER_HOURS`; null otherwise. */
  disabled_at: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
});
export type WebhookOutput = v.InferOutput<typeof WebhookOutput>;

export const CreatedWebhookOutput = v.object({
  ...WebhookOutput.entries,
  /** The signing secret (`whsec_…`): shown in this answer only. */
  secret: v.string(),
});
export type CreatedWebhookOutput = v.InferOutput<typeof CreatedWebhookOutput>;

export const RotatedSecretOutput = v.object({
  /** The new signing secret; the previous one also signs deliveries for 24 hours. */
  secret: v.string(),
});

export const DeliveryOutput = v.object({
  /** Also the `webhook-id` header every attempt of it carries. */
  id: v.string(),
  event_type: v.picklist(WEBHOOK_EVENT_TYPES),
  webhook_id: v.string(),
  status: v.picklist(['pending', 'succeeded', 'failed']),
  attempts: v.number(),
  last_status_code: v.nullable(v.number()),
  last_error: v.nullable(v.string()),
  next_attempt_at: v.nullable(v.string()),
  created_at: v.string(),
});
export type DeliveryOutput = v.InferOutput<typeof DeliveryOutput>;

export const DeliveriesQuery = v.object({ ...PageQuery });
