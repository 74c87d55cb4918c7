import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { drizzle as pgDrizzle } from 'drizzle-orm/node-postgres';
import { migrate as pgMigrate } from 'drizzle-orm/node-postgres/migrator';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openSqlite } from '../src/db/sqlite';
import { testStore } from './helpers/store';

/*
 * A SQLite file made by the release before guests (migrations up to 0016) opens under this one:
 * `0017_guests` rebuilds the users table, which must keep every row that references a user, the
 * triggers on users, and every reference intact. (PostgreSQL alters the columns in place.)
 */

const MIGRATIONS = new URL('../drizzle/sqlite/', import.meta.url).pathname;
const PG_MIGRATIONS = new URL('../drizzle/postgres/', import.meta.url).pathname;
const BEFORE_GUESTS = '0016_idempotency_keys';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The migrations folder as the previous release shipped it: up to `last`. */
function migrationsUpTo(last: string, from = MIGRATIONS): string {
  const folder = mkdtempSync(join(tmpdir(), 'migrations-'));
  folders.push(folder);
  const journal = JSON.parse(readFileSync(join(from, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  const upTo = journal.entries.findIndex((entry) => entry.tag === last);
  expect(upTo).toBeGreaterThan(0);
  const entries = journal.entries.slice(0, upTo + 1);
  mkdirSync(join(folder, 'meta'));
  writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) copyFileSync(join(from, `${tag}.sql`), join(folder, `${tag}.sql`));
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
    old
      .prepare(
        `insert into users (id, email, name, password_hash, created_at, updated_at) values ('u1', 'ada@example.test', 'Ada', 'hash', ?, ?)`,
      )
      .run(now, now);
    old
      .prepare(
        `insert into auth_tokens (id, user_id, token_hash, expires_at, last_used_at, created_at) values ('t1', 'u1', 'h1', ?, ?, ?)`,
      )
      .run(now, now, now);
    old
      .prepare(
        `insert into workshops (id, owner_type, owner_id, created_by, title, view, access_code, created_at, updated_at) values ('w1', 'user', 'u1', 'u1', 'Old', '{}', '123456789', ?, ?)`,
      )
      .run(now, now);
    old
      .prepare(
        `insert into workshop_members (id, workshop_id, user_id, role, created_at) values ('m1', 'w1', 'u1', 'facilitator', ?)`,
      )
      .run(now);
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
      const triggers = migrated
        .prepare(`select name from sqlite_master where type = 'trigger' and tbl_name = 'users' order by name`)
        .all();
      expect(triggers).toEqual([{ name: 'auth_state_on_user_delete' }, { name: 'auth_state_on_user_update' }]);
      // The epoch triggers still fire: a renamed user moves it.
      const epoch = () =>
        (migrated.prepare('select epoch from auth_state where id = 1').get() as { epoch: number }).epoch;
      const before = epoch();
      migrated.prepare(`update users set name = 'Ada L.' where id = 'u1'`).run();
      expect(epoch()).toBe(before + 1);
      // The address stays unique, and guests (no address) do not collide.
      expect(() =>
        migrated
          .prepare(
            `insert into users (id, email, name, password_hash, created_at, updated_at) values ('u2', 'ada@example.test', 'Twin', 'h', ?, ?)`,
          )
          .run(now, now),
      ).toThrow(/UNIQUE/);
      const guest = migrated.prepare(
        `insert into users (id, name, guest, created_at, updated_at) values (?, 'Guest', 1, ?, ?)`,
      );
      guest.run('g1', now, now);
      guest.run('g2', now, now);
    } finally {
      migrated.close();
    }
  });
});

/*
 * Account deletion (docs/api.md#an-accounts-life): the release before it has cards, comments, items
 * and attachments whose author may not be null. SQLite rebuilds those four tables; everything
 * referencing them (votes, ratings, each other) must come through, and an author may then be null.
 */
describe.skipIf(testStore !== 'sqlite')('SQLite migration to account deletion', () => {
  it('keeps every card, its feedback and their references through the rebuild, and lets an author be null', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrated-'));
    folders.push(dir);
    const path = join(dir, 'old.db');
    const old = new BetterSqlite3(path);
    migrate(drizzle(old), { migrationsFolder: migrationsUpTo('0025_account_life') });
    const now = new Date().toISOString();
    const rows = [
      `insert into users (id, email, name, password_hash, created_at, updated_at) values ('u1', 'ada@example.test', 'Ada', 'h', '${now}', '${now}')`,
      `insert into workshops (id, owner_type, owner_id, created_by, title, view, access_code, created_at, updated_at) values ('w1', 'user', 'u1', 'u1', 'Old', '{}', '123456789', '${now}', '${now}')`,
      `insert into sections (id, workshop_id, title, position, created_at, updated_at) values ('s1', 'w1', 'Next', 0, '${now}', '${now}')`,
      `insert into cards (id, workshop_id, number, type, title, position, user_id, created_at, updated_at) values ('c1', 'w1', 1, 'cluster', 'Cluster', 0, 'u1', '${now}', '${now}')`,
      `insert into cards (id, workshop_id, number, type, title, parent_id, position, user_id, created_at, updated_at) values ('c2', 'w1', 2, 'idea', 'Idea', 'c1', 0, 'u1', '${now}', '${now}')`,
      `insert into votes (id, workshop_id, card_id, user_id, value, created_at, updated_at) values ('v1', 'w1', 'c2', 'u1', 1, '${now}', '${now}')`,
      `insert into comments (id, workshop_id, card_id, user_id, content, created_at) values ('k1', 'w1', 'c2', 'u1', 'Hm', '${now}')`,
      `insert into items (id, workshop_id, card_id, section_id, user_id, content, created_at, updated_at) values ('i1', 'w1', 'c2', 's1', 'u1', 'Do', '${now}', '${now}')`,
      `insert into attachments (id, workshop_id, card_id, user_id, name, file_key, container, mimetype, size, created_at) values ('a1', 'w1', 'c2', 'u1', 'f.txt', 'k', 'uploads', 'text/plain', 1, '${now}')`,
    ];
    for (const statement of rows) old.prepare(statement).run();
    old.close();

    await openSqlite(path, { checked: false }).close();

    const migrated = new BetterSqlite3(path);
    try {
      for (const table of ['cards', 'votes', 'comments', 'items', 'attachments'])
        expect(migrated.prepare(`select count(*) as n from ${table}`).get(), table).toEqual({
          n: table === 'cards' ? 2 : 1,
        });
      expect(migrated.prepare('select vote_tallies.positive from vote_tallies').all()).toEqual([{ positive: 1 }]);
      expect(migrated.pragma('foreign_key_check')).toEqual([]);
      for (const table of ['cards', 'comments', 'items', 'attachments'])
        migrated.prepare(`update ${table} set user_id = null`).run();
      expect(migrated.prepare('select user_id from cards').all()).toEqual([{ user_id: null }, { user_id: null }]);
      expect(migrated.prepare('select deleted_at from users').all()).toEqual([{ deleted_at: null }]);
    } finally {
      migrated.close();
    }
  });
});

/*
 * Private writing (docs/api.md#private-writing-and-anonymous-authors): the release before it has
 * cards, comments and feedback in its log; after the migration every logged change about a card
 * names that card's author, so a private step hides the old changes too, and what was written keeps
 * its author shown.
 */
const OLD_ROWS = [
  `insert into users (id, email, name, password_hash, created_at, updated_at) values ('u1', 'ada@example.test', 'Ada', 'h', '2026-01-01', '2026-01-01')`,
  `insert into users (id, email, name, password_hash, created_at, updated_at) values ('u2', 'bo@example.test', 'Bo', 'h', '2026-01-01', '2026-01-01')`,
  `insert into workshops (id, owner_type, owner_id, created_by, title, view, access_code, created_at, updated_at) values ('w1', 'user', 'u1', 'u1', 'Old', '{}', '123456789', '2026-01-01', '2026-01-01')`,
  `insert into cards (id, workshop_id, number, type, title, position, user_id, created_at, updated_at) values ('c1', 'w1', 1, 'cluster', 'Bo''s', 0, 'u2', '2026-01-01', '2026-01-01')`,
  `insert into comments (id, workshop_id, card_id, user_id, content, created_at) values ('k1', 'w1', 'c1', 'u1', 'Nice', '2026-01-01')`,
  `insert into events (id, workshop_id, seq, action, user_id, change, created_at) values
    ('e1', 'w1', 1, 'addCard', 'u2', '{"card":{"id":"c1","user_id":"u2"}}', '2026-01-01'),
    ('e2', 'w1', 2, 'addComment', 'u1', '{"comment":{"id":"k1","user_id":"u1","card_id":"c1"}}', '2026-01-01'),
    ('e3', 'w1', 3, 'addVote', 'u1', '{"vote":{"id":"v1","user_id":"u1","value":1,"card_id":"c1"}}', '2026-01-01'),
    ('e4', 'w1', 4, 'updateWorkshop', 'u1', '{"workshop":{"id":"w1"},"changes":{}}', '2026-01-01')`,
];
const AFTER = {
  events: [
    { id: 'e1', card_user_id: 'u2' },
    { id: 'e2', card_user_id: 'u2' },
    { id: 'e3', card_user_id: 'u2' },
    { id: 'e4', card_user_id: null },
  ],
  cards: [{ author_visibility: 'shown' }],
  comments: [{ author_visibility: 'shown' }],
};

describe.skipIf(testStore !== 'sqlite')('SQLite migrations to private writing', () => {
  it('name the card author of every logged change about a card, and keep what was written shown', () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrated-'));
    folders.push(dir);
    const db = new BetterSqlite3(join(dir, 'old.db'));
    try {
      migrate(drizzle(db), { migrationsFolder: migrationsUpTo('0017_guests') });
      for (const statement of OLD_ROWS) db.prepare(statement).run();
      // As the store migrates (`db/sqlite.ts`): later migrations rebuild tables that rows reference.
      db.pragma('foreign_keys = OFF');
      migrate(drizzle(db), { migrationsFolder: MIGRATIONS });
      expect(db.prepare('select id, card_user_id from events order by seq').all()).toEqual(AFTER.events);
      expect(db.prepare('select author_visibility from cards').all()).toEqual(AFTER.cards);
      expect(db.prepare('select author_visibility from comments').all()).toEqual(AFTER.comments);
    } finally {
      db.close();
    }
  });
});

describe.skipIf(testStore !== 'postgres')('PostgreSQL migrations to private writing', () => {
  it('name the card author of every logged change about a card, and keep what was written shown', async () => {
    const info = inject('postgres')!;
    const name = `m_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: `${info.baseUrl}postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const client = new pg.Client({ connectionString: `${info.baseUrl}${name}` });
    try {
      await client.connect();
      await pgMigrate(pgDrizzle(client), { migrationsFolder: migrationsUpTo('0006_guests', PG_MIGRATIONS) });
      for (const statement of OLD_ROWS) await client.query(statement);
      await pgMigrate(pgDrizzle(client), { migrationsFolder: PG_MIGRATIONS });
      expect((await client.query('select id, card_user_id from events order by seq')).rows).toEqual(AFTER.events);
      expect((await client.query('select author_visibility from cards')).rows).toEqual(AFTER.cards);
      expect((await client.query('select author_visibility from comments')).rows).toEqual(AFTER.comments);
    } finally {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
