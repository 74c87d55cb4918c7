import { isIP } from 'node:net';
import { nowIso } from '../../db/columns';
import { write } from '../../db/write';
import type { AppDeps } from '../../deps';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { isPublicAddress } from '../../lib/public-fetch';
import { loadOrganizationAccess, requireOrganizationAdmin } from '../organizations/access';
import { insertMessages } from './messages-repo';
import { deliveryBody, newMessageId } from './outbox';
import {
  deleteEndpoint,
  endpointOf,
  endpointsOf,
  insertEndpoint,
  rotateSecret,
  updateEndpoint,
  type EndpointRow,
} from './endpoints-repo';
import { deliveriesOf, insertDeliveries, resendDelivery, type DeliveryRow } from './repo';
import type {
  CreatedWebhookOutput,
  CreateWebhookInput,
  DeliveryOutput,
  UpdateWebhookInput,
  WebhookOutput,
} from './schemas';
import { newSigningSecret } from './signing';
import { msg } from '../../i18n/messages';

/** How long a rotated-out secret still signs deliveries beside the new one. */
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export function toWebhook(row: EndpointRow): WebhookOutput {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabled_at: row.disabledAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function toDelivery(row: DeliveryRow): DeliveryOutput {
  return {
    id: row.messageId,
    event_type: row.eventType as DeliveryOutput['event_type'],
    webhook_id: row.endpointId,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    next_attempt_at: row.status === 'pending' ? row.nextAttemptAt : null,
    created_at: row.createdAt,
  };
}

/** Webhooks are for the organization's admins (and tokens with the webhooks scopes); members who are not get 403, anyone else 404. */
async function requireWebhookAdmin(deps: AppDeps, organizationId: string, user: UserRow): Promise<void> {
  requireOrganizationAdmin(await loadOrganizationAccess(deps.database.db, organizationId, user));
}

/**
 * Refuses an address that can only be private (a literal private IP, `localhost`) at once, unless
 * private addresses are allowed; names are checked on each delivery's own lookup.
 */
function refusePrivateUrl(deps: AppDeps, raw: string): void {
  if (deps.config.webhooks.allowPrivate) return;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const local = host === 'localhost' || host.endsWith('.localhost');
  if (local || (isIP(host) && !isPublicAddress(host)))
    throw new AppError('invalid_request', msg('error.webhooks.private_url'), {
      details: [{ path: 'url', message: msg('error.webhooks.private_host', { host }) }],
    });
}

async function findEndpoint(deps: AppDeps, organizationId: string, id: string): Promise<EndpointRow> {
  const row = await endpointOf(deps.database.db, organizationId, id);
  if (!row) throw notFound('webhook');
  return row;
}

export async function createWebhook(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  input: CreateWebhookInput,
): Promise<CreatedWebhookOutput> {
  await requireWebhookAdmin(deps, organizationId, user);
  refusePrivateUrl(deps, input.url);
  const secret = newSigningSecret();
  const row = await write(deps, (tx) =>
    insertEndpoint(tx, {
      organizationId,
      url: input.url,
      events: [...new Set(input.events)],
      description: input.description,
      secret,
    }),
  );
  return { ...toWebhook(row), secret };
}

export async function listWebhooks(deps: AppDeps, user: UserRow, organizationId: string): Promise<WebhookOutput[]> {
  await requireWebhookAdmin(deps, organizationId, user);
  return (await endpointsOf(deps.database.db, organizationId)).map(toWebhook);
}

export async function getWebhook(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  id: string,
): Promise<WebhookOutput> {
  await requireWebhookAdmin(deps, organizationId, user);
  return toWebhook(await findEndpoint(deps, organizationId, id));
}

/** Enabling an endpoint again starts its failing clock afresh. */
export async function updateWebhook(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  id: string,
  input: UpdateWebhookInput,
): Promise<WebhookOutput> {
  await requireWebhookAdmin(deps, organizationId, user);
  if (input.url !== undefined) refusePrivateUrl(deps, input.url);
  const row = await write(deps, (tx) =>
    updateEndpoint(tx, organizationId, id, {
      ...(input.url !== undefined && { url: input.url }),
      ...(input.events !== undefined && { events: [...new Set(input.events)] }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      ...(input.enabled === true && { failingSince: null, disabledAt: null }),
      updatedAt: nowIso(),
    }),
  );
  if (!row) throw notFound('webhook');
  return toWebhook(row);
}

export async function deleteWebhook(deps: AppDeps, user: UserRow, organizationId: string, id: string): Promise<void> {
  await requireWebhookAdmin(deps, organizationId, user);
  if (!(await write(deps, (tx) => deleteEndpoint(tx, organizationId, id)))) throw notFound('webhook');
}

/** A new secret; the one it replaces signs deliveries too for 24 hours, so receivers can change over. */
export async function rotateWebhookSecret(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  id: string,
): Promise<{ secret: string }> {
  await requireWebhookAdmin(deps, organizationId, user);
  const secret = newSigningSecret();
  const now = Date.now();
  const change = {
    secret,
    previousUntil: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
    at: new Date(now).toISOString(),
  };
  if (!(await write(deps, (tx) => rotateSecret(tx, organizationId, id, change)))) throw notFound('webhook');
  return { secret };
}

/** Queues a `ping` to this endpoint only (its message comes expanded), in a lane of its own. */
export async function pingWebhook(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  id: string,
): Promise<DeliveryOutput> {
  await requireWebhookAdmin(deps, organizationId, user);
  const endpoint = await findEndpoint(deps, organizationId, id);
  if (!endpoint.enabled) throw new AppError('conflict', msg('error.webhooks.disabled'));
  const messageId = newMessageId();
  const at = nowIso();
  const row = await write(deps, async (tx, changes) => {
    const lane = messageId;
    await insertMessages(tx, [
      {
        id: messageId,
        organizationId,
        lane,
        eventType: 'ping',
        body: deliveryBody('ping', at, { webhook_id: id, organization_id: organizationId }),
        createdAt: at,
        expanded: true,
      },
    ]);
    await insertDeliveries(tx, [
      { messageId, endpointId: id, lane, eventType: 'ping', nextAttemptAt: at, createdAt: at },
    ]);
    deps.changeOutbox.queuedBy(changes);
    return resendDelivery(tx, id, messageId, at);
  });
  return toDelivery(row!);
}

export async function listDeliveries(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  id: string,
  page: { offset: number; perPage: number },
): Promise<{ deliveries: DeliveryOutput[]; total: number }> {
  await requireWebhookAdmin(deps, organizationId, user);
  await findEndpoint(deps, organizationId, id);
  const { rows, total } = await deliveriesOf(deps.database.db, id, page);
  return { deliveries: rows.map(toDelivery), total };
}

/** Sends a delivery again, with its first body and `webhook-id`; it goes out in its place in its lane. */
export async function retryDelivery(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  id: string,
  deliveryId: string,
): Promise<DeliveryOutput> {
  await requireWebhookAdmin(deps, organizationId, user);
  await findEndpoint(deps, organizationId, id);
  const row = await write(deps, async (tx, changes) => {
    const resent = await resendDelivery(tx, id, deliveryId, nowIso());
    if (resent) deps.changeOutbox.queuedBy(changes);
    return resent;
  });
  if (!row) throw notFound('delivery');
  return toDelivery(row);
}
