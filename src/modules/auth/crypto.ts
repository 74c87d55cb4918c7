import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const SCRYPT = { r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/**
 * `scrypt$N$r$p$salt$hash`, N being 2^`cost` (`Config.passwordHashCost`): parameters travel with
 * the hash so they can be raised later.
 */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await scryptAsync(password, salt, SCRYPT.keyLength, {
    N,
    r: SCRYPT.r,
    p: SCRYPT.p,
    maxmem: SCRYPT.maxmem,
  });
  return ['scrypt', N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A fresh random token for a client to hold; only its hash is stored. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * What a password is checked against when the e-mail is unknown: a hash of the same cost as new
 * ones, so an unknown e-mail costs as much time as a wrong password.
 */
export function dummyPasswordHash(cost: number): string {
  return `scrypt$${2 ** cost}$${SCRYPT.r}$${SCRYPT.p}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
}
