import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { pageHeaders, pageOf } from '../../http/pagination';
import { jsonBody, queryParams } from '../../http/validation';
import {
  CreatedWebhookOutput,
  CreateWebhookInput,
  DeliveriesQuery,
  DeliveryOutput,
  RotatedSecretOutput,
  UpdateWebhookInput,
  WebhookOutput,
} from './schemas';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  pingWebhook,
  retryDelivery,
  rotateWebhookSecret,
  updateWebhook,
} from './service';

const tag = 'Webhooks';
const base = '/organizations/:id/webhooks';

/** An organization's webhook endpoints and their deliveries (docs/integrations.md#webhooks): its admins, and tokens with the webhooks scopes. */
export function webhooksRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post(
      base,
      doc({
        tag,
        summary: 'Register an endpoint (admins)',
        description: 'The answer holds the signing secret (`whsec_…`), shown in this answer only.',
        status: 201,
        response: CreatedWebhookOutput,
      }),
      jsonBody(CreateWebhookInput),
      async (c) => c.json(await createWebhook(deps, c.get('user'), c.req.param('id'), c.req.valid('json')), 201),
    )
    .get(
      base,
      doc({ tag, summary: "The organization's endpoints, without secrets", response: v.array(WebhookOutput) }),
      async (c) => c.json(await listWebhooks(deps, c.get('user'), c.req.param('id')), 200),
    )
    .get(
      `${base}/:webhook_id`,
      doc({ tag, summary: 'An endpoint, without its secret', response: WebhookOutput }),
      async (c) => c.json(await getWebhook(deps, c.get('user'), c.req.param('id'), c.req.param('webhook_id')), 200),
    )
    .put(
      `${base}/:webhook_id`,
      doc({
        tag,
        summary: 'Change an endpoint',
        description: 'Its URL, events, description, or `enabled` (enabling it again after the sender disabled it).',
        response: WebhookOutput,
      }),
      jsonBody(UpdateWebhookInput),
      async (c) =>
        c.json(
          await updateWebhook(deps, c.get('user'), c.req.param('id'), c.req.param('webhook_id'), c.req.valid('json')),
          200,
        ),
    )
    .delete(
      `${base}/:webhook_id`,
      doc({ tag, summary: 'Remove an endpoint and its deliveries', status: 204 }),
      async (c) => {
        await deleteWebhook(deps, c.get('user'), c.req.param('id'), c.req.param('webhook_id'));
        return c.body(null, 204);
      },
    )
    .post(
      `${base}/:webhook_id/rotate_secret`,
      doc({
        tag,
        summary: 'Make a new signing secret',
        description: 'For 24 hours deliveries carry a signature by each secret, the new and the previous.',
        response: RotatedSecretOutput,
      }),
      async (c) =>
        c.json(await rotateWebhookSecret(deps, c.get('user'), c.req.param('id'), c.req.param('webhook_id')), 200),
    )
    .post(
      `${base}/:webhook_id/test`,
      doc({ tag, summary: 'Send the endpoint a `ping`', status: 201, response: DeliveryOutput }),
      async (c) => c.json(await pingWebhook(deps, c.get('user'), c.req.param('id'), c.req.param('webhook_id')), 201),
    )
    .get(
      `${base}/:webhook_id/deliveries`,
      doc({ tag, summary: "The endpoint's deliveries, newest first", response: v.array(DeliveryOutput) }),
      queryParams(DeliveriesQuery),
      async (c) => {
        const page = pageOf(c.req.valid('query'));
        const { deliveries, total } = await listDeliveries(
          deps,
          c.get('user'),
          c.req.param('id'),
          c.req.param('webhook_id'),
          page,
        );
        return c.json(deliveries, 200, pageHeaders(deps.config.publicUrl, c.req.url, page, total));
      },
    )
    .post(
      `${base}/:webhook_id/deliveries/:delivery_id/retry`,
      doc({
        tag,
        summary: 'Send a delivery again',
        description: 'With its first body and `webhook-id`, in its place among the workshop’s deliveries.',
        response: DeliveryOutput,
      }),
      async (c) =>
        c.json(
          await retryDelivery(
            deps,
            c.get('user'),
            c.req.param('id'),
            c.req.param('webhook_id'),
            c.req.param('delivery_id'),
          ),
          200,
        ),
    );
}
