import type http from 'node:http';
import type https from 'node:https';
import { postPublic } from '../../lib/public-post';
import type { TakenDelivery } from './repo';
import { signatureHeader } from './signing';

/** Any 2xx within this long is success (docs/integrations.md#retries-and-order). */
const TIMEOUT_MS = 10_000;
/** Bytes of a refusal's body kept in `last_error`. */
const BODY_KEPT = 200;

/** What one attempt came to: a 2xx, or the status or error that refused it. */
export interface Outcome {
  delivery: TakenDelivery;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/**
 * One attempt at a delivery, signed to the Standard Webhooks specification with the endpoint's
 * secret, and during a rotation its previous one too. Never throws: a failure is an outcome.
 */
export async function attemptDelivery(
  delivery: TakenDelivery,
  options: { allowPrivate: boolean; agents: { http: http.Agent; https: https.Agent } },
): Promise<Outcome> {
  const now = Date.now();
  const secrets = [delivery.secret];
  if (delivery.previousSecret && delivery.previousSecretUntil && Date.parse(delivery.previousSecretUntil) > now)
    secrets.push(delivery.previousSecret);
  const timestamp = Math.floor(now / 1000);
  try {
    const answer = await postPublic(delivery.url, {
      body: delivery.body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'workshops-webhooks',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, delivery.id, timestamp, delivery.body),
      },
      timeoutMs: TIMEOUT_MS,
      maxBytes: BODY_KEPT,
      allowPrivate: options.allowPrivate,
      agents: options.agents,
    });
    const ok = answer.status >= 200 && answer.status < 300;
    return {
      delivery,
      ok,
      statusCode: answer.status,
      error: ok ? null : `HTTP ${answer.status}${answer.body ? `: ${answer.body.trim()}` : ''}`.slice(0, 500),
    };
  } catch (err) {
    return { delivery, ok: false, statusCode: null, error: (err as Error).message.slice(0, 500) };
  }
}
