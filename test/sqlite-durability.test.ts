import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { queryRows } from '../src/db/sql';
import { useServer } from './helpers/cast';
import type { TestServer } from './helpers/server';
import { testStore } from './helpers/store';

/*
 * An acknowledged write survives a power cut (docs/operations.md#durability): in WAL mode SQLite syncs the log on
 * every commit only with `synchronous = FULL`; `NORMAL` syncs at checkpoints, so the last commits
 * survive a crash of the process but not of the machine. `SQLITE_SYNCHRONOUS=normal` opts out.
 */

/** The `synchronous` level in force on the connection that commits, and on the one that reads (2: FULL, 1: NORMAL). */
async function synchronousLevels(t: TestServer): Promise<{ writer: number; reader: number }> {
  const level = async (db: TestServer['db']) =>
    Number((await queryRows<{ synchronous: number }>(db, sql`PRAGMA synchronous`))[0]!.synchronous);
  return { writer: await t.write((tx) => level(tx)), reader: await level(t.db) };
}

describe.skipIf(testStore === 'postgres')('SQLite durability', () => {
  describe('by default', () => {
    // As the environment leaves it (the tests' own configuration opts out, for speed).
    const t = useServer(() => ({ sqliteSynchronous: loadConfig({ SECRET: 'a'.repeat(32) }).sqliteSynchronous }));

    it('syncs every commit to disk before it is acknowledged (synchronous = FULL)', async () => {
      expect(await synchronousLevels(t)).toEqual({ writer: 2, reader: 2 });
    });
  });

  describe('with SQLITE_SYNCHRONOUS=normal', () => {
    const t = useServer({ sqliteSynchronous: 'normal' });

    it('syncs at checkpoints only (synchronous = NORMAL)', async () => {
      expect(await synchronousLevels(t)).toEqual({ writer: 1, reader: 1 });
    });
  });
});
