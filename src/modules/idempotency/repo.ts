import { and, eq, isNull, lte } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';

type KeyRow = Schema['idempotencyKeys']['$inferSelect'];
/** Whose key: a user's id, or '' for the routes that need no token. */
type KeyRef = Pick<KeyRow, 'owner' | 'key'>;
/** A key as a request that has just taken it leaves it: no answer yet, held until `lockedUntil`. */
export type FreshKey = Pick<KeyRow, 'fingerprint' | 'status' | 'headers' | 'body' | 'lockedUntil' | 'expiresAt'>;

const thisKey = (db: Db, ref: KeyRef) => {
  const { idempotencyKeys: keys } = tablesOf(db);
  return and(eq(keys.owner, ref.owner), eq(keys.key, ref.key));
};

/** Inserts the key unless it exists; true when this insert made it. */
export async function insertKeyIfNew(tx: Db, ref: KeyRef, fresh: FreshKey): Promise<boolean> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  const inserted = await tx
    .insert(keys)
    .values({ ...ref, ...fresh })
    .onConflictDoNothing()
    .returning({ key: keys.key });
  return inserted.length > 0;
}

export async function keyRow(tx: Db, ref: KeyRef): Promise<KeyRow | undefined> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  const [row] = await tx.select().from(keys).where(thisKey(tx, ref));
  return row;
}

/** Takes an expired key afresh, if it still expires at `expiresAt` (nobody took it meanwhile). */
export async function retakeExpiredKey(tx: Db, ref: KeyRef, fresh: FreshKey, expiresAt: string): Promise<boolean> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  const taken = await tx
    .update(keys)
    .set(fresh)
    .where(and(thisKey(tx, ref), eq(keys.expiresAt, expiresAt)))
    .returning({ key: keys.key });
  return taken.length > 0;
}

/** Takes a key whose running request stopped holding it, if its hold is still `heldUntil`. */
export async function retakeAbandonedKey(
  tx: Db,
  ref: KeyRef,
  heldUntil: string,
  lockedUntil: string,
): Promise<boolean> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  const taken = await tx
    .update(keys)
    .set({ lockedUntil })
    .where(and(thisKey(tx, ref), isNull(keys.status), eq(keys.lockedUntil, heldUntil)))
    .returning({ key: keys.key });
  return taken.length > 0;
}

/** Moves the hold of a key whose request is still running. */
export async function holdRunningKey(tx: Db, ref: KeyRef, lockedUntil: string): Promise<void> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  await tx
    .update(keys)
    .set({ lockedUntil })
    .where(and(thisKey(tx, ref), isNull(keys.status)));
}

/** Keeps the answer of the key's running request until `expiresAt`. */
export async function storeAnswer(
  tx: Db,
  ref: KeyRef,
  answer: Pick<KeyRow, 'status' | 'headers' | 'body'>,
  expiresAt: string,
): Promise<void> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  await tx
    .update(keys)
    .set({ ...answer, expiresAt })
    .where(and(thisKey(tx, ref), isNull(keys.status)));
}

/** Deletes the key while its request is still running (no answer kept). */
export async function deleteRunningKey(tx: Db, ref: KeyRef): Promise<void> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  await tx.delete(keys).where(and(thisKey(tx, ref), isNull(keys.status)));
}

/** Deletes the keys expired by `now`; answers how many. */
export async function deleteExpiredKeys(tx: Db, now: string): Promise<number> {
  const { idempotencyKeys: keys } = tablesOf(tx);
  const gone = await tx.delete(keys).where(lte(keys.expiresAt, now)).returning({ key: keys.key });
  return gone.length;
}
