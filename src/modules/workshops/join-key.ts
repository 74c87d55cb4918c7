import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * The join link's key (`${PUBLIC_URL}/join#key=<key>`): the workshop's id, a dot, and a MAC made
 * with the service's secret over the id and the workshop's current access code. Nothing is
 * stored: the id says which workshop to read, and its code says whether the MAC is still its own,
 * so a new code (a workshop reopened under another) ends every link made for the old one. Unlike
 * nine digits it cannot be guessed, which is why a join with it is no guess to limit.
 */

/** 128 bits of MAC: as unguessable as the key has to be, and short enough for a QR code. */
const MAC_BYTES = 16;

function macOf(secret: string, workshopId: string, accessCode: string): Buffer {
  return createHmac('sha256', secret).update(`join\n${workshopId}\n${accessCode}`).digest().subarray(0, MAC_BYTES);
}

/** The key of the link that joins the workshop while it runs under `accessCode`. */
export function joinKeyFor(secret: string, workshop: { id: string; accessCode: string }): string {
  return `${workshop.id}.${macOf(secret, workshop.id, workshop.accessCode).toString('base64url')}`;
}

/** The workshop id a key names, or null when it is not shaped like a key (a wrong key all the same). */
export function workshopIdOfKey(key: string): string | null {
  const dot = key.lastIndexOf('.');
  return dot > 0 ? key.slice(0, dot) : null;
}

/** Whether `key` was made for this workshop under its current code; compared in constant time. */
export function keyOpens(secret: string, workshop: { id: string; accessCode: string }, key: string): boolean {
  const dot = key.lastIndexOf('.');
  if (key.slice(0, dot) !== workshop.id) return false;
  // As text, as it was handed out: base64url decoding would let other spellings of the MAC through.
  const given = Buffer.from(key.slice(dot + 1));
  const expected = Buffer.from(macOf(secret, workshop.id, workshop.accessCode).toString('base64url'));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
