import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { tablesOf, type Schema } from '../src/db/database';
import { rowInserter, type Insertable } from '../src/db/prepared';
import { openPostgres } from '../src/db/postgres';
import { execute, queryRows } from '../src/db/sql';
import { QueryOutsideTransaction } from '../src/db/scope';
import { write } from '../src/db/write';
import { useCast } from './helpers/cast';
import { eventLog, seedCard, seedWorkshopWith } from './helpers/factories';
import { testStore } from './helpers/store';

/*
 * The data layer's own rules: a write reaches the database only through its transaction, and the
 * code is written so that the same queries run on SQLite and PostgreSQL.
 */

const { t, facilitator, participant } = useCast();

describe('a write transaction', () => {
  it('refuses a query through the read handle inside it, and leaves nothing of the write', async () => {
    const workshop = await seedWorkshopWith(t, facilitator, [participant]);
    const { workshops } = t.tables;
    const outside = write(t.deps, async (tx) => {
      await tx.update(tablesOf(tx).workshops).set({ title: 'Renamed' }).where(eq(workshops.id, workshop.id));
      // A read that would not see the update above (SQLite: another connection; PostgreSQL: another pooled one).
      await t.deps.database.db.select().from(workshops).where(eq(workshops.id, workshop.id));
    });
    await expect(outside).rejects.toBeInstanceOf(QueryOutsideTransaction);
    const [row] = await t.db.select().from(workshops).where(eq(workshops.id, workshop.id));
    expect(row!.title).toBe(workshop.title);
  });

  it('sees its own rows: a merge answers with the card it just made', async () => {
    const workshop = await seedWorkshopWith(t, facilitator, [participant]);
    const a = await seedCard(t, workshop.id, facilitator, { type: 'cluster', title: 'A' });
    const b = await seedCard(t, workshop.id, facilitator, { type: 'cluster', title: 'B' });
    const res = await t.request<{ id: string; title: string }>('POST', `/v1/workshops/${workshop.id}/cards/merge`, {
      token: facilitator.token,
      body: { cards_id: [a.id, b.id], title: 'A and B' },
    });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('A and B');
  });

  it('numbers the events it records on several workshops, each in its own sequence', async () => {
    const [first, second] = [await seedWorkshopWith(t, facilitator, []), await seedWorkshopWith(t, facilitator, [])];
    await write(t.deps, async (_tx, changes) => {
      for (const workshop of [first!, second!, first!]) {
        changes.record({
          workshopId: workshop.id,
          action: 'addMessage',
          userId: facilitator.id,
          change: { message: { content: 'Hello', include_me: false, recipients: 0 } },
        });
      }
    });
    expect((await eventLog(t, first!.id)).map((event) => event.seq)).toEqual([1, 2]);
    expect((await eventLog(t, second!.id)).map((event) => event.seq)).toEqual([1]);
  });

  it('cannot be opened inside another one', async () => {
    const nested = t.deps.database.transaction(() => t.deps.database.transaction(async () => 1));
    await expect(nested).rejects.toThrow(/inside another one/);
  });
});

describe('a multi-row insert (`rowInserter`)', () => {
  type Row = Schema['notifications']['$inferSelect'];
  const insert = rowInserter(
    'test_notifications_insert',
    ['id', 'userId', 'type', 'data', 'read', 'createdAt', 'updatedAt'],
    (db, rows: Array<Insertable<Row>>) =>
      db
        .insert(tablesOf(db).notifications)
        .values(rows)
        .returning({ id: tablesOf(db).notifications.id }),
  );
  const rows = (type: string, count: number): Row[] =>
    Array.from({ length: count }, (_, i) => ({
      id: `${type}-${String(i).padStart(4, '0')}`,
      userId: participant.id,
      type,
      data: { i },
      read: i % 2 === 0,
      createdAt: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
      updatedAt: '2026-01-02T00:00:00.000Z',
    }));

  it('stores each call its own rows, prepared (up to 64) or built, in chunks of 500', async () => {
    // Two calls of one size share a prepared statement; 501 rows are a built chunk and a prepared one.
    const calls = [rows('first', 3), rows('second', 3), rows('many', 501), []];
    const answers = await write(t.deps, async (tx) => Promise.all(calls.map((call) => insert(tx, call))));
    expect(answers.map((chunks) => chunks.map((returned) => returned.length))).toEqual([[3], [3], [500, 1], []]);
    const { notifications } = t.tables;
    const stored = await t.db.select().from(notifications).where(eq(notifications.userId, participant.id));
    const byId = (list: Row[]) => [...list].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(byId(stored)).toEqual(byId(calls.flat()));
  });
});

/** Every source file under `dir`, with its path relative to the repository. */
function sources(dir: string): Array<{ path: string; text: string }> {
  const found: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sources(path));
    else if (name.endsWith('.ts'))
      found.push({ path: relative(process.cwd(), path), text: readFileSync(path, 'utf8') });
  }
  return found;
}

describe('the code the stores share', () => {
  const outsideDb = sources('src').filter((file) => !file.path.startsWith('src/db/'));

  it('awaits every query: no synchronous better-sqlite3 calls outside the SQLite store', () => {
    const offending = outsideDb.flatMap(({ path, text }) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          /\)\s*\.(all|get|run)\(\)|sqliteOf|\.pluck\(|better-sqlite3/.test(line)
            ? [`${path}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(offending).toEqual([]);
  });

  it('takes its tables from the handle, never from an import of a schema', () => {
    const offending = outsideDb
      .filter(({ text }) => /^import (?!type)[^;]*from '[./]*db\/schema(-pg)?\/index'/m.test(text))
      .map(({ path }) => path);
    expect(offending).toEqual([]);
  });
});

describe('the migrations', () => {
  it('are what the schemas say, for each dialect: drizzle-kit would generate nothing', () => {
    const dialects = [
      { dialect: 'sqlite', schema: './src/db/schema/index.ts', folder: 'drizzle/sqlite' },
      { dialect: 'postgresql', schema: './src/db/schema-pg/index.ts', folder: 'drizzle/postgres' },
    ];
    for (const { dialect, schema, folder } of dialects) {
      // drizzle-kit takes the folder relative to the working directory.
      const copy = relative(process.cwd(), mkdtempSync(join(process.cwd(), '.migrations-check-')));
      try {
        cpSync(folder, copy, { recursive: true });
        const before = readdirSync(copy, { recursive: true }).sort();
        const out = execFileSync(
          'npx',
          ['drizzle-kit', 'generate', '--dialect', dialect, '--schema', schema, '--out', copy],
          { encoding: 'utf8', stdio: 'pipe' },
        );
        expect(out, dialect).toMatch(/No schema changes/);
        expect(readdirSync(copy, { recursive: true }).sort(), dialect).toEqual(before);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }
  }, 60_000);
});

describe.skipIf(testStore !== 'postgres')('a PostgreSQL database', () => {
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: `${inject('postgres')!.baseUrl}postgres` });
    await client.connect();
    try {
      return (await client.query(statement)).rows as unknown[];
    } finally {
      await client.end();
    }
  };

  it('is migrated once by instances starting together, all of them serving afterwards', async () => {
    const name = `migrate_${Date.now()}`;
    await admin(`CREATE DATABASE ${name}`);
    const url = `${inject('postgres')!.baseUrl}${name}`;
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => openPostgres(url, { checked: true, poolSize: 2 })),
    );
    try {
      const applied = await queryRows<{ hash: string }>(
        stores[0]!.db,
        sql`SELECT hash FROM drizzle.__drizzle_migrations`,
      );
      expect(applied).toHaveLength(readdirSync('drizzle/postgres').filter((file) => file.endsWith('.sql')).length);
      expect(new Set(applied.map((row) => row.hash)).size).toBe(applied.length);
      for (const store of stores) expect(await store.answers()).toBe(true);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await admin(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  });

  /**
   * The locales a first deploy meets: C.UTF-8 (Debian's and many images' default), the libc
   * en_US.UTF-8 where the machine has it, and ICU's English (managed services, PostgreSQL 15+
   * built with ICU), which orders by a language's rules: case and accents second, punctuation last.
   */
  const LOCALES = [
    { name: 'C.UTF-8', clause: "LOCALE 'C.UTF-8'" },
    { name: 'en_US.UTF-8', clause: "LOCALE 'en_US.UTF-8'", libc: 'en_US.utf8' },
    { name: 'ICU en-US', clause: "LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'" },
  ];
  const NAMES = ['bob', 'Bob', 'Ángel', 'émile', 'Zoë', 'zed', '_under', 'a-c', 'ab', 'Éa', 'èb'];
  const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  // SQLite's lower() folds ASCII letters only.
  const asciiLower = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

  it.for(LOCALES)(
    'starts on a database made with $name, and orders and folds text bytewise there, as SQLite does',
    async ({ clause, libc }, context) => {
      if (libc && (await admin(`SELECT 1 FROM pg_collation WHERE collname = '${libc}'`)).length === 0) {
        // Debian's images carry C.UTF-8 only, unless the locales package adds more.
        context.skip(`this machine has no ${libc} locale`);
      }
      const name = `collated_${Date.now()}`;
      await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' ${clause}`);
      const store = await openPostgres(`${inject('postgres')!.baseUrl}${name}`, { checked: true, poolSize: 1 });
      try {
        expect(await store.answers()).toBe(true);
        await store.transaction(async (tx) => {
          for (const [index, person] of NAMES.entries()) {
            await execute(
              tx,
              sql`INSERT INTO users (id, email, name, created_at, updated_at) VALUES (${`u${index}`}, ${`${index}@example.test`}, ${person}, '', '')`,
            );
          }
        });
        const ordered = await queryRows<{ name: string }>(store.db, sql`SELECT name FROM users ORDER BY name`);
        expect(ordered.map((row) => row.name)).toEqual([...NAMES].sort(bytewise));
        const folded = await queryRows<{ name: string }>(
          store.db,
          sql`SELECT lower(name) AS name FROM users ORDER BY lower(name), id`,
        );
        expect(folded.map((row) => row.name)).toEqual(NAMES.map(asciiLower).sort(bytewise));
        const below = await queryRows<{ name: string }>(
          store.db,
          sql`SELECT name FROM users WHERE name < ${'a'} ORDER BY name`,
        );
        expect(below.map((row) => row.name)).toEqual(
          NAMES.filter((person) => bytewise(person, 'a') < 0).sort(bytewise),
        );
      } finally {
        await store.close();
        await admin(`DROP DATABASE ${name} WITH (FORCE)`);
      }
    },
  );
});
