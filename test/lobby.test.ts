import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { t as say } from '../src/i18n/messages';
import {
  callOperation,
  documentedOperations,
  guardedAs,
  guestOf,
  seedScene,
  succeeded,
  type Operation,
  type Scene,
} from './helpers/access-scene';
import { useDocs, useSockets, useUsers } from './helpers/cast';
import { sqlPlacement } from './helpers/collab';
import { errorOf, expectError, seedCard, seedCurrentStep, seedWorkshopWith, type TestUser } from './helpers/factories';
import { startTestServer } from './helpers/server';
import { quietFor, until } from './helpers/wait';

const LOBBY_REFUSAL = say('en', 'error.access.lobby');

/*
 * The lobby (docs/api.md#the-lobby): a workshop that has steps and none current takes no writes
 * from participants, guests included, on any channel, until a facilitator starts a step. Every
 * documented operation a member may write through is learned from the service's own OpenAPI
 * document (as `test/security.test.ts` does), so a new participant write is refused here without
 * anyone listing it. Facilitators write as ever; a workshop with no steps keeps participants'
 * default rights; once a step is current, participants write as it allows.
 */

// The operations must be known while vitest collects the tests: the server starts now.
const t = await startTestServer();
afterAll(() => t.close());

const operations = await documentedOperations(t);
/** Every write a member (participants included, as a step allows) may make in a workshop. */
const memberWrites = guardedAs(operations, 'member').filter((o) => o.method !== 'GET');

const [fay, pat] = useUsers(t, 'Fay', 'Pat');
const sockets = useSockets(t);
const docs = useDocs(t);

const call = (operation: Operation, scene: Scene, user: TestUser) => callOperation(t, operation, scene, user);

/** The scene's workshop: one of everything, a step, and none current (`seedScene`). */
function useLobbyScene() {
  const scene = {} as Scene;
  beforeAll(async () => {
    Object.assign(scene, await seedScene(t, { fay, pat }));
    // The scene's export is made in the background, and logged when done: done before anything is compared.
    const path = `/v1/workshops/${scene.workshop}/exports/${scene.export}`;
    await until(
      async () =>
        (await succeeded(t.request<{ state: string }>('GET', path, { token: fay.token }))).state !== 'pending',
      'the scene’s export made',
      15_000,
      50,
    );
  });
  return scene;
}

/** Everything written in the workshop, as stored: what a refused write must leave as it was. */
async function stored(workshopId: string) {
  // `files`: the uploads counted against the workshop (a guest's, from the upload on).
  const tables = ['cards', 'votes', 'ratings', 'items', 'comments', 'attachments', 'files'];
  const rows = await Promise.all(
    tables.map((table) =>
      t.rows(sql`select * from ${sql.identifier(table)} where workshop_id = ${workshopId} order by id`),
    ),
  );
  const [workshop] = await t.rows(
    sql`select last_event_seq, last_card_number, updated_at from workshops where id = ${workshopId}`,
  );
  return { workshop, ...Object.fromEntries(tables.map((table, index) => [table, rows[index]])) };
}

const startStep = (workshopId: string, stepId: string | null) =>
  succeeded(t.request('PUT', `/v1/workshops/${workshopId}`, { token: fay.token, body: { current_step_id: stepId } }));

/** Writes a cluster, a vote and a comment on it as `user`, then renames and deletes it: each must go through. */
async function writeThrough(workshopId: string, user: TestUser): Promise<void> {
  const w = `/v1/workshops/${workshopId}`;
  const as = (method: string, path: string, body?: unknown) => t.request(method, path, { token: user.token, body });
  const card = await as('POST', `${w}/cards`, { type: 'cluster', title: 'Written' });
  expect(card.status, JSON.stringify(card.body)).toBe(201);
  const path = `${w}/cards/${(card.body as { id: string }).id}`;
  const writes = [
    ['POST', `${path}/votes`, { value: 1 }, 201],
    ['POST', `${path}/comments`, { content: 'Fine' }, 201],
    ['PUT', path, { title: 'Renamed' }, 200],
    ['DELETE', path, undefined, 204],
  ] as const;
  for (const [method, at, body, status] of writes) {
    const res = await as(method, at, body);
    expect(res.status, `${method} ${at}: ${JSON.stringify(res.body)}`).toBe(status);
  }
}

/** Expects the refusal of the lobby: 403 forbidden, saying the workshop has not started. */
function expectNotStarted(res: { status: number; body: unknown }): void {
  expectError(res, 403, 'forbidden');
  expect(errorOf(res).message).toBe(LOBBY_REFUSAL);
  expect(LOBBY_REFUSAL).toMatch(/has not started yet/);
}

describe('the writes a participant may make', () => {
  it('are all learned from the document, cards, votes, ratings, items, comments and attachments among them', () => {
    expect(memberWrites.map((o) => o.key)).toEqual(
      expect.arrayContaining([
        'POST /v1/workshops/{workshop_id}/cards',
        'POST /v1/workshops/{workshop_id}/cards/merge',
        'PUT /v1/workshops/{workshop_id}/cards/{id}',
        'DELETE /v1/workshops/{workshop_id}/cards/{id}',
        'POST /v1/workshops/{workshop_id}/cards/{card_id}/votes',
        'POST /v1/workshops/{workshop_id}/cards/{card_id}/ratings',
        'POST /v1/workshops/{workshop_id}/cards/{card_id}/items',
        'POST /v1/workshops/{workshop_id}/cards/{card_id}/comments',
        'POST /v1/workshops/{workshop_id}/cards/{card_id}/attachments',
      ]),
    );
    expect(memberWrites.length).toBeGreaterThan(15);
  });
});

describe.each([
  ['a participant who joined before the facilitator started', 'participant'],
  // Joining is not writing in the workshop: the room gets in before it starts.
  ['a guest who scanned the code before the facilitator started', 'guest'],
] as const)('%s', (_, who) => {
  const scene = useLobbyScene();
  const early = {} as TestUser;
  const before = {} as Awaited<ReturnType<typeof stored>>;
  beforeAll(async () => {
    Object.assign(early, who === 'guest' ? await guestOf(t, scene.workshop, fay) : pat);
    Object.assign(before, await stored(scene.workshop));
  });

  it('reads the workshop, its steps and its cards, and sees that none of its steps is current', async () => {
    const w = `/v1/workshops/${scene.workshop}`;
    const read = <T>(path: string) => succeeded(t.request<T>('GET', path, { token: early.token }));
    expect((await read<{ current_step_id: string | null }>(w)).current_step_id).toBeNull();
    expect(await read<unknown[]>(`${w}/steps`)).toHaveLength(1);
    expect(await read<unknown[]>(`${w}/cards`)).toHaveLength(2);
  });

  it.each(memberWrites.map((o) => [o.key, o] as const))(
    '%s → 403: the workshop has not started yet',
    async (_, operation) => {
      expectNotStarted(await call(operation, scene, early));
    },
  );

  it.runIf(who === 'guest')(
    'cannot upload a file to attach either: a guest’s upload is for their workshop',
    async () => {
      const upload = operations.find((o) => o.key === 'POST /v1/uploads')!;
      expectNotStarted(await call(upload, scene, early));
    },
  );

  it('changed nothing in the workshop with all those refused writes', async () => {
    expect(await stored(scene.workshop)).toEqual(before);
  });

  it('is still told a facilitator route is only for facilitators, not that the workshop has not started', async () => {
    const res = await t.request('PUT', `/v1/workshops/${scene.workshop}`, {
      token: early.token,
      body: { current_step_id: scene.step },
    });
    expectError(res, 403, 'forbidden');
    expect(errorOf(res).message).toBe('Only facilitators may do this.');
  });
});

describe('facilitators in the lobby', () => {
  const scene = useLobbyScene();

  it('prepare the board before starting: cards, votes, comments, edits and deletions all go through', async () => {
    // The scene itself was seeded by the facilitator in the lobby: a vote, a rating, an item, a comment, an attachment.
    await writeThrough(scene.workshop, fay);
  });
});

describe('when the facilitator starts a step', () => {
  it('lets participants write as that step allows, and refuses what it does not with the step’s own reason', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    const base = `/v1/workshops/${w.id}`;
    const cluster = await seedCard(t, w.id, fay, { type: 'cluster' });
    const step = await succeeded(
      t.request<{ id: string }>('POST', `${base}/steps`, {
        token: fay.token,
        body: { name: 'Ideas only', prefs: { allow_vote_on_clusters: false } },
      }),
    );
    const idea = { type: 'idea', title: 'Early bird', parent: cluster.id };
    expectNotStarted(await t.request('POST', `${base}/cards`, { token: pat.token, body: idea }));

    await startStep(w.id, step.id);
    expect((await t.request('POST', `${base}/cards`, { token: pat.token, body: idea })).status).toBe(201);
    const vote = await t.request('POST', `${base}/cards/${cluster.id}/votes`, { token: pat.token, body: { value: 1 } });
    expectError(vote, 403, 'forbidden');
    expect(errorOf(vote).message).not.toBe(LOBBY_REFUSAL);
    expect(errorOf(vote).message).toMatch(/current step does not allow/);
  });

  it('takes the room back to the lobby when the current step is cleared: even their own cards and votes stay as they are', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    const base = `/v1/workshops/${w.id}`;
    const step = await seedCurrentStep(t, w.id, {});
    const mine = await succeeded(
      t.request<{ id: string }>('POST', `${base}/cards`, {
        token: pat.token,
        body: { type: 'cluster', title: 'Mine' },
      }),
    );
    const vote = await succeeded(
      t.request<{ id: string }>('POST', `${base}/cards/${mine.id}/votes`, { token: pat.token, body: { value: 1 } }),
    );

    await startStep(w.id, null);
    const before = await stored(w.id);
    expectNotStarted(await t.request('PUT', `${base}/cards/${mine.id}`, { token: pat.token, body: { title: 'Late' } }));
    expectNotStarted(await t.request('DELETE', `${base}/cards/${mine.id}/votes/${vote.id}`, { token: pat.token }));
    expectNotStarted(await t.request('DELETE', `${base}/cards/${mine.id}`, { token: pat.token }));
    expect(await stored(w.id)).toEqual(before);

    await startStep(w.id, step.id);
    expect((await t.request('DELETE', `${base}/cards/${mine.id}/votes/${vote.id}`, { token: pat.token })).status).toBe(
      204,
    );
  });
});

describe('a workshop without any step', () => {
  it('keeps letting participants write as a step made without prefs would, for use through the API alone', async () => {
    await writeThrough((await seedWorkshopWith(t, fay, [pat])).id, pat);
  });

  it('goes into its lobby when its first step is added, and out of it when that step is deleted', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    const base = `/v1/workshops/${w.id}`;
    const cluster = () =>
      t.request('POST', `${base}/cards`, { token: pat.token, body: { type: 'cluster', title: 'X' } });
    const step = await succeeded(
      t.request<{ id: string }>('POST', `${base}/steps`, { token: fay.token, body: { name: 'Later' } }),
    );
    expectNotStarted(await cluster());
    await succeeded(t.request('DELETE', `${base}/steps/${step.id}`, { token: fay.token }));
    expect((await cluster()).status).toBe(201);
  });
});

describe('the live channels in the lobby', () => {
  it('puts back a participant’s move of their own card on the Yjs document, and takes it once the step starts', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    const step = await succeeded(
      t.request<{ id: string }>('POST', `/v1/workshops/${w.id}/steps`, { token: fay.token, body: { name: 'Sort' } }),
    );
    const card = await seedCard(t, w.id, pat, { type: 'cluster' });
    const [mover, facilitator] = [await docs.synced(w.id, pat), await docs.synced(w.id, fay)];
    await until(() => mover.cards.has(card.id), 'the card in the participant’s document');
    const before = mover.cards.get(card.id);

    mover.cards.set(card.id, { position: 0, x: 40, y: 40 });
    await until(() => JSON.stringify(mover.cards.get(card.id)) === JSON.stringify(before), 'the move put back');
    expect(await sqlPlacement(t, card.id)).toEqual({ position: 0, x: null, y: null });
    expect(facilitator.cards.get(card.id)).toEqual(before);

    // A facilitator arranges the board before starting.
    facilitator.cards.set(card.id, { position: 0, x: 5, y: 5 });
    await until(async () => (await sqlPlacement(t, card.id)).x === 5, 'the facilitator’s move stored');

    await startStep(w.id, step.id);
    mover.cards.set(card.id, { position: 0, x: 7, y: 7 });
    await until(async () => (await sqlPlacement(t, card.id)).x === 7, 'the participant’s move stored once started');
  });

  it('lets participants join the live events and see who is there; a refused write sends them nothing', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    await succeeded(t.request('POST', `/v1/workshops/${w.id}/steps`, { token: fay.token, body: { name: 'Later' } }));
    const [watcher, early] = [await sockets.joined(fay, w.id), await sockets.joined(pat, w.id)];
    const present = await watcher.next('presence', (p) => p.users.some((user: { id: string }) => user.id === pat.id));
    expect(present.count).toBe(2);
    watcher.clear();

    expectNotStarted(
      await t.request('POST', `/v1/workshops/${w.id}/cards`, {
        token: pat.token,
        body: { type: 'cluster', title: 'X' },
      }),
    );
    await quietFor(200, 'no event for a refused write');
    expect(watcher.received.filter((r) => r.event !== 'presence')).toEqual([]);
    expect(early.received.filter((r) => r.event !== 'presence')).toEqual([]);
  });
});
