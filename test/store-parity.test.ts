import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { ExportOutput } from '../src/domain/events';
import { createUser, type TestUser } from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';
import { dropPostgresDatabase, emptyPostgresDatabase, testStore } from './helpers/store';
import { until } from './helpers/wait';
import { buildScene, RETRO } from './helpers/workshop-scene';

/*
 * On either store (docs/operations.md#running-on-postgresql) every answer is the same on both
 * stores, byte for byte. The same workshop is built through the same requests on a SQLite server
 * and a PostgreSQL one, and their answers compared as text: order of lists, booleans, numbers,
 * nulls and members must match. What cannot match (random ids, the clock, each server's address,
 * signatures) is replaced by a stand-in first, ids by the order they first appear in, so an id
 * standing where another stood on the other store still fails. Lists ordered by text (participants
 * by name, organizations by name folded to lower case) hold names a language's collation orders
 * otherwise than bytes do, and PostgreSQL runs twice: on the run's database (the cluster's C.UTF-8)
 * and on one made with ICU's English collation.
 */

/**
 * Names whose order by bytes differs from English order (case, accents, punctuation), and whose
 * lower case differs beyond ASCII (SQLite folds ASCII letters only): `Éa` before `èb` bytewise,
 * after it once folded by a Unicode-aware lower().
 */
const PARTICIPANT_NAMES = ['bob', 'Bob', 'Ángel', 'émile', 'Zoë', 'zed', '_under', 'a-c', 'ab', 'Éa', 'èb'];
const ORGANIZATION_NAMES = ['Éa', 'èb', 'Zeta', 'alpha', '_tools', 'Ábaco', 'Beta'];
const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** 128 random bits in base64url (and not a member name such as `allow_vote_on_clusters`). */
const ID = /(?<![\w-])(?=[\w-]*[A-Z0-9-])[\w-]{22}(?![\w-])/g;
const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;
const EMAIL = /[\w.-]+-[0-9a-f]{8}@example\.test/g;

function normalized(text: string, origin: string): string {
  const seen = new Map<string, string>();
  const standIn = (prefix: string) => (value: string) => {
    if (!seen.has(value)) seen.set(value, `<${prefix}${seen.size}>`);
    return seen.get(value)!;
  };
  return (
    text
      .replaceAll(origin, '<origin>')
      .replace(/(expires|signature)=[\w%-]+/g, '$1=<signed>')
      .replace(TIME, '<time>')
      .replace(EMAIL, standIn('email'))
      // An export's file key is its workshop's id and a random one, joined by `_`: two ids to stand in for.
      .replace(/\/exports\/([\w-]{22})_([\w-]{22})/g, '/exports/$1~$2')
      .replace(ID, standIn('id'))
  );
}

interface Built {
  t: TestServer;
  facilitator: TestUser;
  workshopId: string;
}

/** The scene on a store: the run's own database for it, or the PostgreSQL database at `databaseUrl`. */
async function build(store: 'sqlite' | 'postgres', databaseUrl?: string): Promise<Built> {
  const t = await startTestServer(databaseUrl ? { databaseUrl } : {}, { store });
  const people = [await createUser(t, 'Fay'), await createUser(t, 'Pat'), await createUser(t, 'Otto')];
  const { workshop, cards } = await buildScene(t, people, RETRO);
  const base = `/v1/workshops/${workshop.id}`;
  const token = people[0]!.token;
  const code = (await t.request<{ access_code: string }>('GET', `${base}/access_code`, { token })).body.access_code;
  for (const name of PARTICIPANT_NAMES) {
    const joined = await t.request('POST', '/v1/workshops/join', {
      token: (await createUser(t, name)).token,
      body: { access_code: code },
    });
    expect(joined.status, name).toBeLessThan(300);
  }
  for (const name of ORGANIZATION_NAMES)
    expect((await t.request('POST', '/v1/organizations', { token, body: { name } })).status, name).toBe(201);
  // A few changes of every kind on top: a merge, a move, an update, a step change, the timer.
  const merged = await t.request<{ id: string }>('POST', `${base}/cards/merge`, {
    token,
    body: { cards_id: [cards.get('Faster CI'), cards.get('تحسين الأدوات')], title: 'Tools' },
  });
  expect(merged.status).toBe(201);
  expect(
    (
      await t.request('PUT', `${base}/cards/${cards.get('Shorter standups')}`, {
        token,
        body: { position: 1, content: 'Ten minutes' },
      })
    ).status,
  ).toBe(200);
  const steps = (await t.request<Array<{ id: string }>>('GET', `${base}/steps`, { token })).body;
  expect(
    (await t.request('PUT', base, { token, body: { current_step_id: steps[1]!.id, title: 'Q4 retro, voting' } }))
      .status,
  ).toBe(200);
  expect((await t.request('PUT', `${base}/timer`, { token, body: { duration_s: 300 } })).status).toBe(200);
  return { t, facilitator: people[0]!, workshopId: workshop.id };
}

/** The answers compared: the workshop, its cards, its log and its native export, as text. */
async function answers({ t, facilitator, workshopId }: Built): Promise<Record<string, string>> {
  const text = async (path: string) => {
    const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${facilitator.token}` } });
    expect(res.status, path).toBe(200);
    return normalized(await res.text(), t.url);
  };
  const base = `/v1/workshops/${workshopId}`;
  const made = await t.request<ExportOutput>('POST', `${base}/exports`, {
    token: facilitator.token,
    body: { type: 'native' },
  });
  let exported = made.body;
  await until(
    async () => {
      exported = (await t.request<ExportOutput>('GET', `${base}/exports/${made.body.id}`, { token: facilitator.token }))
        .body;
      return exported.state !== 'pending';
    },
    'the native export',
    20_000,
  );
  expect(exported.state).toBe('success');
  // The Yjs document is compared by what it holds, in the order of the export's own cards and
  // zones: its encoding carries the random client ids of its writers.
  const native = JSON.parse(await (await fetch(exported.url!)).text()) as {
    cards: Array<{ id: string }>;
    canvas: { zones: Array<{ id: string }>; document: unknown };
  };
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Buffer.from(native.canvas.document as string, 'base64'));
  const inOrder = (map: Y.Map<unknown>, ids: string[]) =>
    Object.fromEntries(
      [...ids, ...[...map.keys()].filter((id) => !ids.includes(id)).sort()].map((id) => [id, map.get(id)]),
    );
  native.canvas.document = {
    cards: inOrder(
      doc.getMap('cards'),
      native.cards.map((card) => card.id),
    ),
    zones: inOrder(
      doc.getMap('zones'),
      native.canvas.zones.map((zone) => zone.id),
    ),
  };
  return {
    workshop: await text(base),
    cards: await text(`${base}/cards`),
    events: await text(`${base}/events?per_page=100`),
    participation: await text(`${base}/participation`),
    organizations: await text('/v1/user/me/organizations'),
    native: normalized(JSON.stringify(native), t.url),
  };
}

/** A database made as ICU's English would order it, as a managed PostgreSQL may be. */
const ENGLISH = "LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'";

describe.skipIf(testStore !== 'postgres')('the same workshop on SQLite and on PostgreSQL', () => {
  let sqlite: Built;
  let postgres: Built;
  let englishUrl: string;
  let english: Built;
  let fromSqlite: Record<string, string>;
  beforeAll(async () => {
    sqlite = await build('sqlite');
    postgres = await build('postgres');
    englishUrl = await emptyPostgresDatabase(ENGLISH);
    english = await build('postgres', englishUrl);
    fromSqlite = await answers(sqlite);
  }, 120_000);
  afterAll(async () => {
    await sqlite?.t.close();
    await postgres?.t.close();
    await english?.t.close();
    if (englishUrl) await dropPostgresDatabase(englishUrl);
  });

  it('compares lists ordered by text: participants by name, organizations by name in lower case', () => {
    const names = (JSON.parse(fromSqlite.participation!) as { users: Array<{ name: string }> }).users.map(
      (user) => user.name,
    );
    expect(names).toEqual([...names].sort(bytewise));
    expect(names).toEqual(expect.arrayContaining(PARTICIPANT_NAMES));
    const organizations = (JSON.parse(fromSqlite.organizations!) as Array<{ name: string }>).map(
      (organization) => organization.name,
    );
    expect(organizations).toEqual(['_tools', 'alpha', 'Beta', 'Zeta', 'Ábaco', 'Éa', 'èb']);
  });

  it("gets the same answers, byte for byte once random values stand in, on the run's database (C.UTF-8)", async () => {
    const [collation] = await postgres.t.rows<{ datcollate: string }>(
      sql`SELECT datcollate FROM pg_database WHERE datname = current_database()`,
    );
    expect(collation!.datcollate).toBe('C.UTF-8');
    const fromPostgres = await answers(postgres);
    for (const name of Object.keys(fromSqlite)) {
      expect(fromPostgres[name], name).toBe(fromSqlite[name]);
    }
    // The comparison has something to compare: votes, ratings, comments, zones and the timer's change.
    expect(fromSqlite.native).toContain('"votes":[{');
    expect(fromSqlite.events).toContain('"action":"changeTimer"');
  });

  it('gets the same answers on a database made with an English collation (ICU en-US)', async () => {
    const [provider] = await english.t.rows<{ provider: string }>(
      sql`SELECT datlocprovider AS provider FROM pg_database WHERE datname = current_database()`,
    );
    expect(provider!.provider).toBe('i');
    const fromEnglish = await answers(english);
    for (const name of Object.keys(fromSqlite)) {
      expect(fromEnglish[name], name).toBe(fromSqlite[name]);
    }
  });
});
