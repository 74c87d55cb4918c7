import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { ExportOutput } from '../src/modules/events/changes';
import { createUser, type TestUser } from './helpers/factories';
import { startTestServer, type TestServer } from './helpers/server';
import { testStore } from './helpers/store';
import { until } from './helpers/wait';
import { buildScene, RETRO } from './helpers/workshop-scene';

/*
 * CONTRACT §10: every answer is the same on both stores, byte for byte. The same workshop is built
 * through the same requests on a SQLite server and a PostgreSQL one, and their answers compared as
 * text: order of lists, booleans, numbers, nulls and members must match. What cannot match (random
 * ids, the clock, each server's address, signatures) is replaced by a stand-in first, ids by the
 * order they first appear in, so an id standing where another stood on the other store still fails.
 */

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
  return text
    .replaceAll(origin, '<origin>')
    .replace(/(expires|signature)=[\w%-]+/g, '$1=<signed>')
    .replace(TIME, '<time>')
    .replace(EMAIL, standIn('email'))
    // An export's file key is its workshop's id and a random one, joined by `_`: two ids to stand in for.
    .replace(/\/exports\/([\w-]{22})_([\w-]{22})/g, '/exports/$1~$2')
    .replace(ID, standIn('id'));
}

interface Built {
  t: TestServer;
  facilitator: TestUser;
  workshopId: string;
}

async function build(store: 'sqlite' | 'postgres'): Promise<Built> {
  const t = await startTestServer({}, { store });
  const people = [await createUser(t, 'Fay'), await createUser(t, 'Pat'), await createUser(t, 'Otto')];
  const { workshop, cards } = await buildScene(t, people, RETRO);
  const base = `/v1/workshops/${workshop.id}`;
  const token = people[0]!.token;
  // A few changes of every kind on top: a merge, a move, an update, a step change, the timer.
  const merged = await t.request<{ id: string }>('POST', `${base}/cards/merge`, { token, body: { cards_id: [cards.get('Faster CI'), cards.get('تحسين الأدوات')], title: 'Tools' } });
  expect(merged.status).toBe(201);
  expect((await t.request('PUT', `${base}/cards/${cards.get('Shorter standups')}`, { token, body: { position: 1, content: 'Ten minutes' } })).status).toBe(200);
  const steps = (await t.request<Array<{ id: string }>>('GET', `${base}/steps`, { token })).body;
  expect((await t.request('PUT', base, { token, body: { current_step_id: steps[1]!.id, title: 'Q4 retro, voting' } })).status).toBe(200);
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
  const made = await t.request<ExportOutput>('POST', `${base}/exports`, { token: facilitator.token, body: { type: 'native' } });
  let exported = made.body;
  await until(async () => {
    exported = (await t.request<ExportOutput>('GET', `${base}/exports/${made.body.id}`, { token: facilitator.token })).body;
    return exported.state !== 'pending';
  }, 'the native export', 20_000);
  expect(exported.state).toBe('success');
  // The Yjs document is compared by what it holds, in the order of the export's own cards and
  // zones: its encoding carries the random client ids of its writers.
  const native = JSON.parse(await (await fetch(exported.url!)).text()) as {
    cards: Array<{ id: string }>;
    canvas: { zones: Array<{ id: string }>; document: unknown };
  };
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Buffer.from(native.canvas.document as string, 'base64'));
  const inOrder = (map: Y.Map<unknown>, ids: string[]) => Object.fromEntries([...ids, ...[...map.keys()].filter((id) => !ids.includes(id)).sort()].map((id) => [id, map.get(id)]));
  native.canvas.document = { cards: inOrder(doc.getMap('cards'), native.cards.map((card) => card.id)), zones: inOrder(doc.getMap('zones'), native.canvas.zones.map((zone) => zone.id)) };
  return {
    workshop: await text(base),
    cards: await text(`${base}/cards`),
    events: await text(`${base}/events?per_page=100`),
    native: normalized(JSON.stringify(native), t.url),
  };
}

describe.skipIf(testStore !== 'postgres')('the same workshop on SQLite and on PostgreSQL', () => {
  let sqlite: Built;
  let postgres: Built;
  beforeAll(async () => {
    sqlite = await build('sqlite');
    postgres = await build('postgres');
  });
  afterAll(async () => {
    await sqlite?.t.close();
    await postgres?.t.close();
  });

  it('gets the same answers, byte for byte once random values stand in', async () => {
    const [fromSqlite, fromPostgres] = [await answers(sqlite), await answers(postgres)];
    for (const name of Object.keys(fromSqlite)) {
      expect(fromPostgres[name], name).toBe(fromSqlite[name]);
    }
    // The comparison has something to compare: votes, ratings, comments, zones and the timer's change.
    expect(fromSqlite.native).toContain('"votes":[{');
    expect(fromSqlite.events).toContain('"action":"changeTimer"');
  });
});
