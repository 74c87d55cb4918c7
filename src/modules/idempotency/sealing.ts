import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/*
 * What `idempotency_keys` holds must not give away what the requests carried: a login's body holds
 * a password, and the answers of signup, login and guest joins hold bearer tokens, which the
 * service otherwise keeps only as hashes (docs/api.md#accounts-and-tokens). So the table holds the key and the
 * request's fingerprint only as HMACs under `SECRET` (no guessing a password from a fast hash of
 * the body), and each kept answer's body encrypted (AES-256-GCM) under a key derived from the raw
 * Idempotency-Key, which only the client holds: neither the database nor the database with the
 * secret opens it.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key as stored: an HMAC of it, so the raw key never reaches the database. */
export function storedKey(secret: string, key: string): string {
  return createHmac('sha256', secret).update(`key\n${key}`).digest('base64url');
}

/** What makes two requests the same, as stored: an HMAC of method, path with query, and body bytes. */
export function requestFingerprint(
  secret: string,
  method: string,
  pathWithQuery: string,
  body: Uint8Array | null,
): string {
  const hmac = createHmac('sha256', secret).update(`request\n${method} ${pathWithQuery}\n`);
  if (body) hmac.update(body);
  return hmac.digest('base64url');
}

function answerKey(secret: string, key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, secret, 'idempotent answer', 32));
}

/** The answer's body, encrypted for whoever holds the raw key: IV, tag, then the ciphertext. */
export function sealAnswer(secret: string, key: string, body: Uint8Array): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', answerKey(secret, key), iv);
  const sealed = Buffer.concat([cipher.update(body), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

/** The body `sealAnswer` sealed with this key; throws if it was sealed with another or altered. */
export function openAnswer(secret: string, key: string, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', answerKey(secret, key), sealed.subarray(0, IV_BYTES));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}
