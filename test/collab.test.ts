import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { CardDetailOutput } from '../src/modules/cards/schemas';
import type { CardOutput } from '../src/domain/cards';
import * as Y from 'yjs';
import { write, writeWorkshop } from '../src/db/write';
import {
  engineOf,
  openDoc,
  rawSync,
  seedCanvas,
  sqlPlacement,
  sqlZone,
  storedUpdateCount,
  type DocClient,
} from './helpers/collab';
import { quietFor, until } from './helpers/wait';
import { seedCard, seedCurrentStep, type TestUser, seedWorkshopWith, inTurn } from './helpers/factories';
import { useDocs, useServer, useUsers } from './helpers/cast';

const t = useServer();
const [facilitator, participant, stranger] = useUsers(t, 'Fran', 'Pat', 'Stan');
const docs = useDocs(t);

const workshop = () => seedWorkshopWith(t, facilitator, [participant]);

const connect = (workshopId: string, user: TestUser) => docs.synced(workshopId, user);

describe('sync endpoint: who may connect', () => {
  it('closes with 4401 before any sync without a token or with a bad one, and loads nothing', async () => {
    const w = await workshop();
    for (const path of [`/v1/sync/${w.id}`, `/v1/sync/${w.id}?token=not-a-token`]) {
      const res = await rawSync(t, path);
      expect(res.code).toBe(4401);
      expect(res.reason).toBe('unauthenticated');
      expect(res.messages).toEqual([]);
    }
    expect(engineOf(t).loadedDocuments()).not.toContain(w.id);
    expect(await storedUpdateCount(t, w.id)).toBe(0);
  });

  it('closes with 4404 for strangers and unknown workshops, and the provider stops retrying', async () => {
    const w = await workshop();
    await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const res = await rawSync(t, `/v1/sync/${w.id}?token=${stranger.token}`);
    expect(res).toMatchObject({ code: 4404, reason: 'not_found', messages: [] });
    expect((await rawSync(t, `/v1/sync/unknown-workshop?token=${facilitator.token}`)).code).toBe(4404);

    const client = openDoc(t, w.id, stranger.token);
    docs.track(client);
    await until(() => client.closes.length > 0, 'refusal');
    // Longer than the provider's 200 ms backoff: a retry would have closed a second time by now.
    await quietFor(300, 'no reconnection attempt after 4404');
    expect(client.closes).toEqual([{ code: 4404, reason: 'not_found' }]);
    expect(client.provider.synced).toBe(false);
    expect(client.cards.size).toBe(0);
    expect(engineOf(t).loadedDocuments()).not.toContain(w.id);
  });

  it('accepts the token in an Authorization header too', async () => {
    const w = await workshop();
    const before = engineOf(t).usage().connections;
    const res = rawSync(t, `/v1/sync/${w.id}`, { authorization: `Bearer ${participant.token}` });
    // Joined (a document forgotten while a connection still joins it tells it to reconnect instead).
    await until(() => engineOf(t).usage().connections > before, 'connection joined');
    await engineOf(t).forgetWorkshop(w.id);
    expect((await res).code).toBe(4404);
  });
});

describe('document contents', () => {
  it('holds every card of the workshop with its SQL placement on first load', async () => {
    const w = await workshop();
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'A' });
    const b = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'B' });
    const idea = await seedCard(t, w.id, participant, { parentId: a.id });
    const client = await connect(w.id, participant);
    await until(() => client.cards.size === 3, 'three cards');
    expect(client.cards.toJSON()).toEqual({
      [a.id]: { position: 0, x: null, y: null },
      [b.id]: { position: 1, x: null, y: null },
      [idea.id]: { position: 0, x: null, y: null },
    });
  });

  it('stores a client move and its SQL copy before another client sees it', async () => {
    const w = await workshop();
    const card = await seedCard(t, w.id, participant, { type: 'cluster' });
    const [mover, watcher] = await Promise.all([connect(w.id, participant), connect(w.id, facilitator)]);
    const before = await storedUpdateCount(t, w.id);
    mover.cards.set(card.id, { position: 0, x: 120.5, y: -40 });
    await until(() => watcher.cards.get(card.id)?.x === 120.5, 'watcher sees the move');
    expect(await sqlPlacement(t, card.id)).toEqual({ position: 0, x: 120.5, y: -40 });
    expect(await storedUpdateCount(t, w.id)).toBeGreaterThan(before);
    const res = await t.request<CardDetailOutput>('GET', `/v1/workshops/${w.id}/cards/${card.id}`, {
      token: facilitator.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.position).toBe(0);
  });
});

describe('concurrent moves', () => {
  it('converge on every client, the server and the SQL copy, for the same card and for different cards', async () => {
    const w = await workshop();
    const [c1, c2, c3] = await inTurn(3, () => seedCard(t, w.id, participant, { type: 'cluster' }));
    const [a, b] = await Promise.all([connect(w.id, facilitator), connect(w.id, facilitator)]);
    // Same tick: neither client has seen the other's change when making its own.
    a.cards.set(c1!.id, { position: 0, x: 10, y: 10 });
    b.cards.set(c1!.id, { position: 0, x: 99, y: 99 });
    a.cards.set(c2!.id, { position: 1, x: 1, y: 2 });
    b.cards.set(c3!.id, { position: 2, x: 3, y: 4 });

    const same = () => JSON.stringify(a.cards.toJSON()) === JSON.stringify(b.cards.toJSON());
    await until(() => same() && a.cards.get(c3!.id)?.x === 3 && b.cards.get(c2!.id)?.x === 1, 'convergence');
    const winner = a.cards.get(c1!.id);
    // One writer's whole placement wins: never one's x with the other's y.
    expect([10, 99]).toContain(winner.x);
    expect(winner.y).toBe(winner.x);
    const server = await engineOf(t).cardPlacements(w.id);
    expect(server.get(c1!.id)).toEqual(winner);
    expect(await sqlPlacement(t, c1!.id)).toEqual(winner);
    expect(await sqlPlacement(t, c2!.id)).toEqual({ position: 1, x: 1, y: 2 });
    expect(await sqlPlacement(t, c3!.id)).toEqual({ position: 2, x: 3, y: 4 });
  });
});

describe('positions', () => {
  it('renumbers the siblings of a card a client moved, in the document, SQL and REST', async () => {
    const w = await workshop();
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const ideas = await inTurn(['i0', 'i1', 'i2', 'i3'], (title) =>
      seedCard(t, w.id, facilitator, { parentId: cluster.id, title }),
    );
    const [mover, watcher] = await Promise.all([connect(w.id, facilitator), connect(w.id, participant)]);
    const titles = async () =>
      (
        await t.request<CardOutput[]>('GET', `/v1/workshops/${w.id}/cards?parent=${cluster.id}`, {
          token: participant.token,
        })
      ).body.map((c) => c.title);

    // Moved up onto position 0: it goes before the card that was there.
    mover.cards.set(ideas[3]!.id, { ...mover.cards.get(ideas[3]!.id), position: 0 });
    await until(
      () => watcher.cards.get(ideas[0]!.id)?.position === 1 && mover.cards.get(ideas[2]!.id)?.position === 3,
      'renumbered',
    );
    expect(await titles()).toEqual(['i3', 'i0', 'i1', 'i2']);

    // Moved down onto position 2: it goes after the card that was there.
    mover.cards.set(ideas[3]!.id, { ...mover.cards.get(ideas[3]!.id), position: 2 });
    await until(
      () => watcher.cards.get(ideas[3]!.id)?.position === 2 && watcher.cards.get(ideas[1]!.id)?.position === 1,
      'moved down',
    );
    expect(await titles()).toEqual(['i0', 'i1', 'i3', 'i2']);

    // Past the end: clamped to the last position.
    mover.cards.set(ideas[0]!.id, { ...mover.cards.get(ideas[0]!.id), position: 50 });
    await until(() => watcher.cards.get(ideas[0]!.id)?.position === 3, 'clamped');
    expect(await titles()).toEqual(['i1', 'i3', 'i2', 'i0']);
    const positions = ideas.map((i) => mover.cards.get(i.id).position).sort();
    expect(positions).toEqual([0, 1, 2, 3]);
    for (const idea of ideas)
      expect((await sqlPlacement(t, idea.id)).position).toBe(watcher.cards.get(idea.id).position);
  });
});

describe('what clients may write', () => {
  async function settle(client: DocClient, cardId: string, expected: unknown) {
    await until(
      () => JSON.stringify(client.cards.get(cardId)) === JSON.stringify(expected),
      `card ${cardId} back to ${JSON.stringify(expected)}`,
    );
  }

  it('lets participants move only the cards the current step lets them edit', async () => {
    const w = await workshop();
    const theirs = await seedCard(t, w.id, participant, { type: 'cluster' });
    const others = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const client = await connect(w.id, participant);
    const before = client.cards.get(others.id);

    client.cards.set(others.id, { position: 1, x: 5, y: 5 });
    client.cards.set(theirs.id, { position: 0, x: 7, y: 7 });
    await settle(client, others.id, before);
    await until(async () => (await sqlPlacement(t, theirs.id)).x === 7, 'own card moved');
    expect(await sqlPlacement(t, others.id)).toEqual(before);

    await seedCurrentStep(t, w.id, { allow_edit: 'all' });
    client.cards.set(others.id, { position: 1, x: 5, y: 5 });
    await until(async () => (await sqlPlacement(t, others.id)).x === 5, 'allow_edit all');

    await seedCurrentStep(t, w.id, { allow_edit: 'none' });
    client.cards.set(theirs.id, { position: 0, x: 8, y: 8 });
    await settle(client, theirs.id, { position: 0, x: 7, y: 7 });
    expect((await sqlPlacement(t, theirs.id)).x).toBe(7);
  });

  it('refuses every move in an archived workshop', async () => {
    const w = await workshop();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const client = await connect(w.id, facilitator);
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    client.cards.set(card.id, { position: 0, x: 1, y: 1 });
    await settle(client, card.id, { position: 0, x: null, y: null });
    expect(await sqlPlacement(t, card.id)).toEqual({ position: 0, x: null, y: null });
  });

  it('repairs wrong shapes, unknown cards and deletions', async () => {
    const w = await workshop();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const other = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const [client, watcher] = await Promise.all([connect(w.id, facilitator), connect(w.id, participant)]);
    const initial = { position: 0, x: null, y: null };

    for (const bad of [
      { position: -1, x: 1, y: 1 },
      { position: 0.5, x: 1, y: 1 },
      { position: 0, x: 'left', y: 1 },
      'nonsense',
      [1, 2],
      null,
    ]) {
      client.cards.set(card.id, bad);
      await settle(client, card.id, initial);
    }
    client.cards.delete(other.id);
    await settle(client, other.id, { position: 1, x: null, y: null });
    client.cards.set('no-such-card', { position: 0, x: 1, y: 1 });
    await until(() => !client.cards.has('no-such-card'), 'unknown card removed');
    // Extra members are dropped, missing coordinates read as "not placed".
    client.cards.set(card.id, { position: 0, x: 3, extra: 'x' });
    await settle(client, card.id, { position: 0, x: 3, y: null });
    await settle(watcher, card.id, { position: 0, x: 3, y: null });
    expect(await sqlPlacement(t, card.id)).toEqual({ position: 0, x: 3, y: null });
    expect(JSON.stringify(watcher.cards.toJSON())).toBe(JSON.stringify(client.cards.toJSON()));
  });

  it.each([
    ['another root', (doc: Y.Doc) => doc.getText('notes').insert(0, 'not for the server')],
    ['a nested type', (doc: Y.Doc) => doc.getMap('cards').set('nested', new Y.Map([['position', 0]]))],
  ])('closes a client writing %s, storing nothing of it', async (_, write) => {
    const w = await workshop();
    await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const client = await connect(w.id, facilitator);
    const stored = await storedUpdateCount(t, w.id);
    write(client.doc);
    await until(() => client.closes.some((c) => c.code === 4400), 'closed with 4400');
    expect(await storedUpdateCount(t, w.id)).toBe(stored);
    expect((await engineOf(t).cardPlacements(w.id)).size).toBe(1);
  });
});

describe('zones', () => {
  /** The document's zones of a workshop (loading it when needed), inside a write of its own. */
  const documentZones = (workshopId: string) =>
    writeWorkshop(t.deps, workshopId, (tx, changes) => t.deps.collab.zones({ tx, changes }, workshopId));

  it('come from SQL on first load; placeZones from a REST write reaches clients and the SQL copy', async () => {
    const w = await workshop();
    const [z0, z1] = await seedCanvas(t, w.id, 2);
    const client = await connect(w.id, participant);
    await until(() => client.zones.size === 2, 'zones loaded');
    expect(client.zones.get(z0!)).toEqual({ name: 'Zone 0', x: 0, y: 0, rows: 4, cols: 6, cluster_id: null });
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    await write(t.deps, (tx, changes) =>
      t.deps.collab.placeZones({ tx, changes }, w.id, {
        [z1!]: { name: 'Keep', x: 6, y: 1, rows: 4, cols: 6, cluster_id: cluster.id },
        [z0!]: null,
      }),
    );
    await until(() => client.zones.get(z1!)?.cluster_id === cluster.id && !client.zones.has(z0!), 'placeZones relayed');
    expect(await sqlZone(t, z1!)).toEqual({ name: 'Keep', x: 6, y: 1, rows: 4, cols: 6, cluster_id: cluster.id });
    expect([...(await documentZones(w.id)).keys()]).toEqual([z1]);
  });

  it('may be edited through the document by facilitators only, and only with valid values', async () => {
    const w = await workshop();
    const [zone] = await seedCanvas(t, w.id);
    const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const idea = await seedCard(t, w.id, facilitator, { parentId: cluster.id });
    const [fac, par] = await Promise.all([connect(w.id, facilitator), connect(w.id, participant)]);
    const initial = { name: 'Zone 0', x: 0, y: 0, rows: 4, cols: 6, cluster_id: null };
    const back = (client: DocClient, value: unknown) =>
      until(
        () => JSON.stringify(client.zones.get(zone!)) === JSON.stringify(value),
        `zone is ${JSON.stringify(value)}`,
      );

    par.zones.set(zone!, { ...initial, name: 'Mine now' });
    await back(par, initial);
    fac.zones.set(zone!, { ...initial, cluster_id: idea.id });
    await back(fac, initial);
    fac.zones.set(zone!, { ...initial, rows: -3 });
    await back(fac, initial);
    fac.zones.set('zone-nobody-made', initial);
    await until(() => !fac.zones.has('zone-nobody-made'), 'unknown zone removed');
    expect(await sqlZone(t, zone!)).toEqual(initial);

    const moved = { name: 'Moved', x: 2.5, y: 3, rows: 5, cols: 5, cluster_id: cluster.id };
    fac.zones.set(zone!, moved);
    await back(par, moved);
    expect(await sqlZone(t, zone!)).toEqual(moved);
    expect((await documentZones(w.id)).get(zone!)).toEqual(moved);
  });
});

describe('REST and the document', () => {
  const cardsPath = (workshopId: string) => `/v1/workshops/${workshopId}/cards`;
  const placements = (client: DocClient) =>
    client.cards.toJSON() as Record<string, { position: number; x: number | null; y: number | null }>;
  async function create(workshopId: string, body: object, user = facilitator) {
    const res = await t.request<CardOutput>('POST', cardsPath(workshopId), { token: user.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  }

  it('puts created cards in the document and renumbers their siblings there', async () => {
    const w = await workshop();
    const client = await connect(w.id, participant);
    const a = await create(w.id, { type: 'cluster', title: 'A' });
    await until(() => client.cards.has(a.id), 'created card in the document');
    expect(client.cards.get(a.id)).toEqual({ position: 0, x: null, y: null });
    const b = await create(w.id, { type: 'cluster', title: 'B', position: 0 });
    await until(
      () => client.cards.get(a.id)?.position === 1 && client.cards.get(b.id)?.position === 0,
      'siblings renumbered',
    );
    const idea = await create(w.id, { type: 'idea', title: 'i', parent: a.id }, participant);
    await until(() => client.cards.has(idea.id), 'idea in the document');
  });

  it('shows a REST move to clients, keeping the coordinates they set', async () => {
    const w = await workshop();
    const [a, b] = [
      await create(w.id, { type: 'cluster', title: 'A' }),
      await create(w.id, { type: 'cluster', title: 'B' }),
    ];
    const idea = await create(w.id, { type: 'idea', title: 'i', parent: a.id });
    const client = await connect(w.id, facilitator);
    client.cards.set(b.id, { position: 1, x: 300, y: 200 });
    await until(async () => (await sqlPlacement(t, b.id)).x === 300, 'coordinates stored');

    const res = await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${b.id}`, {
      token: facilitator.token,
      body: { position: 0 },
    });
    expect(res.status).toBe(200);
    await until(
      () => client.cards.get(b.id)?.position === 0 && client.cards.get(a.id)?.position === 1,
      'REST move in the document',
    );
    expect(client.cards.get(b.id)).toEqual({ position: 0, x: 300, y: 200 });

    const moved = await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${idea.id}`, {
      token: facilitator.token,
      body: { parent: b.id },
    });
    expect(moved.status).toBe(200);
    expect((await engineOf(t).cardPlacements(w.id)).get(idea.id)?.position).toBe(0);
  });

  it('shows a client move in REST reads', async () => {
    const w = await workshop();
    const [a, b, c] = [
      await create(w.id, { type: 'cluster', title: 'A' }),
      await create(w.id, { type: 'cluster', title: 'B' }),
      await create(w.id, { type: 'cluster', title: 'C' }),
    ];
    const client = await connect(w.id, facilitator);
    client.cards.set(c.id, { position: 0, x: 1, y: 2 });
    await until(() => client.cards.get(a.id)?.position === 1, 'renumbered');
    const list = await t.request<CardOutput[]>('GET', cardsPath(w.id), { token: participant.token });
    expect(list.body.map((card) => [card.title, card.position])).toEqual([
      ['C', 0],
      ['A', 1],
      ['B', 2],
    ]);
    const one = await t.request<CardDetailOutput>('GET', `${cardsPath(w.id)}/${b.id}`, { token: participant.token });
    expect(one.body.position).toBe(2);
  });

  it('removes deleted, merged and replaced cards from the document', async () => {
    const w = await workshop();
    const [a, b, c] = [
      await create(w.id, { type: 'cluster', title: 'A' }),
      await create(w.id, { type: 'cluster', title: 'B' }),
      await create(w.id, { type: 'cluster', title: 'C' }),
    ];
    const ideas = [
      await create(w.id, { type: 'idea', title: 'a1', parent: a.id }),
      await create(w.id, { type: 'idea', title: 'b1', parent: b.id }),
    ];
    const client = await connect(w.id, participant);
    await until(() => client.cards.size === 5, 'five cards');

    expect((await t.request('DELETE', `${cardsPath(w.id)}/${a.id}`, { token: facilitator.token })).status).toBe(204);
    await until(() => !client.cards.has(a.id) && !client.cards.has(ideas[0]!.id), 'cluster and its idea gone');
    await until(
      () => client.cards.get(b.id)?.position === 0 && client.cards.get(c.id)?.position === 1,
      'siblings renumbered',
    );

    const merge = await t.request<CardOutput>('POST', `${cardsPath(w.id)}/merge`, {
      token: facilitator.token,
      body: { cards_id: [c.id, b.id] },
    });
    expect(merge.status).toBe(201);
    await until(() => client.cards.size === 2 && client.cards.has(merge.body.id), 'merged');
    expect(placements(client)).toEqual({
      [merge.body.id]: { position: 0, x: null, y: null },
      [ideas[1]!.id]: { position: 0, x: null, y: null },
    });

    const form = new FormData();
    form.append(
      'file',
      new Blob(['type,title,content,cluster,color,aside\ncluster,New,,,,\nidea,Inside,,New,,\n'], { type: 'text/csv' }),
      'cards.csv',
    );
    const imported = await t.request<CardOutput[]>('PUT', cardsPath(w.id), { token: facilitator.token, rawBody: form });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const ids = imported.body.map((card) => card.id).sort();
    await until(() => JSON.stringify(Object.keys(placements(client)).sort()) === JSON.stringify(ids), 'replaced');
  });

  it('leaves the document alone when a REST write fails', async () => {
    const w = await workshop();
    const a = await create(w.id, { type: 'cluster', title: 'A' });
    const b = await create(w.id, { type: 'cluster', title: 'B' });
    const client = await connect(w.id, participant);
    const stored = await storedUpdateCount(t, w.id);
    const before = JSON.stringify(placements(client));
    const refused = await t.request<CardOutput>('PUT', `${cardsPath(w.id)}/${b.id}`, {
      token: participant.token,
      body: { position: 0 },
    });
    expect(refused.status).toBe(403);
    const invalidBody = await t.request('POST', cardsPath(w.id), {
      token: facilitator.token,
      body: { type: 'idea', title: 'x', parent: 'nope' },
    });
    expect(invalidBody.status).toBe(400);
    // Failed writes have nothing to relay; give a stray update the time to reach the client.
    await quietFor(100, 'no document update after refused writes');
    expect(await storedUpdateCount(t, w.id)).toBe(stored);
    expect(JSON.stringify(placements(client))).toBe(before);
    expect(client.cards.get(a.id).position).toBe(0);
  });

  it('forgets the document of a deleted workshop and closes its clients', async () => {
    const w = await workshop();
    await create(w.id, { type: 'cluster', title: 'A' });
    const client = await connect(w.id, participant);
    expect(await storedUpdateCount(t, w.id)).toBeGreaterThan(0);
    expect((await t.request('DELETE', `/v1/workshops/${w.id}`, { token: facilitator.token })).status).toBe(204);
    await until(() => client.closes.some((c) => c.code === 4404), 'client closed with 4404');
    expect(engineOf(t).loadedDocuments()).not.toContain(w.id);
    expect(await storedUpdateCount(t, w.id)).toBe(0);
  });
});
