import { createHmac, randomBytes } from 'node:crypto';

/*
 * Standard Webhooks signing (docs/integrations.md#verifying-a-delivery): the secret is `whsec_`
 * and base64 key bytes; a delivery's `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` keyed with those bytes, one such signature per
 * secret in use, separated by spaces.
 */

const SECRET_PREFIX = 'whsec_';

/** 32 random bytes: the key length HMAC-SHA256 works with best. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(content).digest('base64')}`)
    .join(' ');
}
