import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../src/db/sqlite';
import { testStore } from './helpers/store';

/*
 * A SQLite file made by the release before guests (migrations up to 0016) opens under this one:
 * `0017_guests` rebuilds the users table, which must keep every row that references a user, the
 * triggers on users, and every reference intact. (PostgreSQL alters the columns in place.)
 */

const MIGRATIONS = new URL('../drizzle/sqlite/', import.meta.url).pathname;
const BEFORE_GUESTS = '0016_idempotency_keys';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The migrations folder as the previous release shipped it: up to `last`. */
function migrationsUpTo(last: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'migrations-'));
  folders.push(folder);
  const journal = JSON.parse(readFileSync(join(MIGRATIONS, 'meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  const upTo = journal.entries.findIndex((entry) => entry.tag === last);
  expect(upTo).toBeGreaterThan(0);
  const entries = journal.entries.slice(0, upTo + 1);
  mkdirSync(join(folder, 'meta'));
  writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) copyFileSync(join(MIGRATIONS, `${tag}.sql`), join(folder, `${tag}.sql`));
  return folder;
}

describe.skipIf(testStore !== 'sqlite')('SQLite migrations', () => {
  it('bring a file of the release before guests forward, keeping users, their references and triggers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrated-'));
    folders.push(dir);
    const path = join(dir, 'old.db');
    const old = new BetterSqlite3(path);
    old.pragma('foreign_keys = ON');
    migrate(drizzle(old), { migrationsFolder: migrationsUpTo(BEFORE_GUESTS) });
    const now = new Date().toISOString();
    old.prepare(`insert into users (id, email, name, password_hash, created_at, updated_at) values ('u1', 'ada@example.test', 'Ada', 'hash', ?, ?)`).run(now, now);
    old.prepare(`insert into auth_tokens (id, user_id, token_hash, expires_at, last_used_at, created_at) values ('t1', 'u1', 'h1', ?, ?, ?)`).run(now, now, now);
    old
      .prepare(
        `insert into workshops (id, owner_type, owner_id, created_by, title, view, access_code, created_at, updated_at) values ('w1', 'user', 'u1', 'u1', 'Old', '{}', '123456789', ?, ?)`,
      )
      .run(now, now);
    old.prepare(`insert into workshop_members (id, workshop_id, user_id, role, created_at) values ('m1', 'w1', 'u1', 'facilitator', ?)`).run(now);
    old.close();

    const store = openSqlite(path, { checked: false });
    await store.close();

    const migrated = new BetterSqlite3(path);
    try {
      expect(migrated.prepare('select id, email, name, password_hash, guest from users').all()).toEqual([
        { id: 'u1', email: 'ada@example.test', name: 'Ada', password_hash: 'hash', guest: 0 },
      ]);
      // Nothing cascaded from the rebuild.
      expect(migrated.prepare('select id from auth_tokens').all()).toEqual([{ id: 't1' }]);
      expect(migrated.prepare('select id, user_id from workshop_members').all()).toEqual([{ id: 'm1', user_id: 'u1' }]);
      expect(migrated.prepare('select allow_guests from workshops').all()).toEqual([{ allow_guests: 1 }]);
      expect(migrated.pragma('foreign_key_check')).toEqual([]);
      const triggers = migrated.prepare(`select name from sqlite_master where type = 'trigger' and tbl_name = 'users' order by name`).all();
      expect(triggers).toEqual([{ name: 'auth_state_on_user_delete' }, { name: 'auth_state_on_user_update' }]);
      // The epoch triggers still fire: a renamed user moves it.
      const epoch = () => (migrated.prepare('select epoch from auth_state where id = 1').get() as { epoch: number }).epoch;
      const before = epoch();
      migrated.prepare(`update users set name = 'Ada L.' where id = 'u1'`).run();
      expect(epoch()).toBe(before + 1);
      // The address stays unique, and guests (no address) do not collide.
      expect(() => migrated.prepare(`insert into users (id, email, name, password_hash, created_at, updated_at) values ('u2', 'ada@example.test', 'Twin', 'h', ?, ?)`).run(now, now)).toThrow(/UNIQUE/);
      const guest = migrated.prepare(`insert into users (id, name, guest, created_at, updated_at) values (?, 'Guest', 1, ?, ?)`);
      guest.run('g1', now, now);
      guest.run('g2', now, now);
    } finally {
      migrated.close();
    }
  });
});
