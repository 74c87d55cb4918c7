import type { Database } from '../../db/database';
import { isUnavailable } from '../../db/errors';
import {
  deleteExpiredKeys,
  deleteRunningKey,
  holdRunningKey,
  insertKeyIfNew,
  keyRow,
  retakeAbandonedKey,
  retakeExpiredKey,
  storeAnswer,
  type FreshKey,
} from './repo';

/** How long a finished write's answer is kept for its key (docs/api.md#idempotent-writes). */
export const KEPT_MS = 24 * 3600 * 1000;
/**
 * A running write holds its key this long, and moves it on while it runs (every third of it); a
 * key whose instance died mid-request is free again after it, rather than answering 409 for a day.
 * Short, because the retry of a write cut off by a dying instance waits for it: a vote sent again
 * to another instance lands within seconds. A write runs for milliseconds, so few ever renew.
 */
export const HELD_MS = 6_000;

/** Whose key: a user's id, or '' for the routes that need no token (the key alone). */
export interface KeyRef {
  owner: string;
  key: string;
}

/** A finished write's answer, as kept. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | null;
}

export type Claim =
  { kind: 'claimed' } | { kind: 'reused' } | { kind: 'running' } | { kind: 'done'; answer: KeptAnswer };

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * Takes the key for a request with this fingerprint: `claimed` when it is the first (or the key's
 * earlier answer has expired, or its running request's hold ran out), else what the key holds.
 * One transaction; two requests claiming one key at once, on any instances, never both get it.
 */
export function claimKey(database: Database, ref: KeyRef, fingerprint: string): Promise<Claim> {
  return database.transaction(async (tx): Promise<Claim> => {
    const now = new Date().toISOString();
    const fresh: FreshKey = {
      fingerprint,
      status: null,
      headers: null,
      body: null,
      lockedUntil: inMs(HELD_MS),
      expiresAt: inMs(KEPT_MS),
    };
    if (await insertKeyIfNew(tx, ref, fresh)) return { kind: 'claimed' };

    const row = await keyRow(tx, ref);
    // Deleted between the two statements (swept, or released by a failed first request): the next try takes it.
    if (!row) return { kind: 'running' };
    if (row.expiresAt <= now) {
      const taken = await retakeExpiredKey(tx, ref, fresh, row.expiresAt);
      return taken ? { kind: 'claimed' } : { kind: 'running' };
    }
    if (row.fingerprint !== fingerprint) return { kind: 'reused' };
    if (row.status !== null)
      return { kind: 'done', answer: { status: row.status, headers: row.headers ?? {}, body: row.body } };
    if (row.lockedUntil > now) return { kind: 'running' };
    // The first request's instance stopped holding it (it died): this one runs instead.
    const taken = await retakeAbandonedKey(tx, ref, row.lockedUntil, fresh.lockedUntil);
    return taken ? { kind: 'claimed' } : { kind: 'running' };
  });
}

/** Moves a running request's hold on its key on. */
export function holdKey(database: Database, ref: KeyRef): Promise<void> {
  return database.transaction((tx) => holdRunningKey(tx, ref, inMs(HELD_MS)));
}

/** Keeps a finished request's answer for its key, for 24 hours from now. */
export function keepAnswer(database: Database, ref: KeyRef, answer: KeptAnswer): Promise<void> {
  return database.transaction((tx) => storeAnswer(tx, ref, answer, inMs(KEPT_MS)));
}

/** Frees a key whose request is not kept (a 5xx or a 429): a retry runs again. */
export function releaseKey(database: Database, ref: KeyRef): Promise<void> {
  return database.transaction((tx) => deleteRunningKey(tx, ref));
}

/** Deletes the keys whose answers have expired (the maintenance sweep). Answers how many. */
export function sweepExpiredKeys(database: Database, now = new Date()): Promise<number> {
  return database.transaction((tx) => deleteExpiredKeys(tx, now.toISOString()));
}

/** How often expired keys are deleted. */
const SWEEP_EVERY_MS = 10 * 60_000;

/** Deletes expired keys every 10 minutes on each instance; `stop` ends it (the shutdown). */
export function startKeySweeper(database: Database): { stop(): void } {
  const timer = setInterval(() => {
    sweepExpiredKeys(database).catch((err: unknown) => {
      if (!isUnavailable(err)) console.error('[idempotency] sweeping expired keys failed', err);
    });
  }, SWEEP_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
