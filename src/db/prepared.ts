import type { Db } from './client';

/**
 * Builds a set of prepared statements once per database handle. Hot paths (auth, access checks,
 * votes) use them to skip query building; with better-sqlite3 they run on the same connection,
 * so they also take part in an open transaction.
 */
export function preparedPerDb<T>(factory: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let prepared = cache.get(db);
    if (!prepared) {
      prepared = factory(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}
