import { eq } from 'drizzle-orm';
import { tablesOf, type Db } from './database';
import { named, preparedPerDb } from './prepared';

/**
 * `auth_state.epoch`: moved by triggers on any token deleted (logout), any user or organization
 * changed and any organization member added, changed or removed, whichever connection or instance
 * did it (SQLite migrations `0003`, `0004`, `0019`; PostgreSQL `0001`, `0008`). Whatever keeps
 * answers that show users, organizations or tokens (the token cache, cached workshop answers)
 * keeps the epoch it read them at, and reads them again once it moved.
 *
 * Every request reads it, so reads are shared: a caller gets the result of a read that started
 * after it asked (never an older one, so a logout committed before a request is seen by it), and
 * callers arriving while a read is under way share the one that follows it. Under load that is one
 * query for many requests instead of one each (on PostgreSQL, a round trip each).
 */
export const identityEpoch = preparedPerDb((db: Db) => {
  const { authState } = tablesOf(db);
  const query = named(
    db.select({ epoch: authState.epoch }).from(authState).where(eq(authState.id, 1)),
    'identity_epoch',
  );
  let running: Promise<number> | null = null;
  let following: Promise<number> | null = null;
  const start = (): Promise<number> => {
    const read = query.execute().then((rows) => rows[0]?.epoch ?? 0);
    const tracked: Promise<number> = read.finally(() => {
      if (running === tracked) running = null;
    });
    tracked.catch(() => {});
    running = tracked;
    return read;
  };
  return (): Promise<number> => {
    if (!running) return start();
    following ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        following = null;
        return start();
      });
    return following;
  };
});
