import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { CardOutput } from '../src/domain/cards';
import type { EventOutput } from '../src/modules/events/schemas';
import { useDocs, useServer, useSockets, useUsers } from './helpers/cast';
import { engineOf, seedCanvas, sqlPlacement, storedUpdateCount } from './helpers/collab';
import { eventLog, seedCard, seedCurrentStep, seedWorkshopWith, type TestUser, inTurn } from './helpers/factories';
import { testStore } from './helpers/store';
import { quietFor, until } from './helpers/wait';

// One owner of card placement: REST card writes and Yjs clients both change placements through
// the workshop's document, which stores the update and the SQL copy in one transaction.

const t = useServer();
const [facilitator, participant] = useUsers(t, 'Fran', 'Pat');
const docs = useDocs(t);
const sockets = useSockets(t);

const workshop = () => seedWorkshopWith(t, facilitator, [participant]);
const connect = (workshopId: string, user: TestUser) => docs.synced(workshopId, user);
const live = (workshopId: string, user: TestUser) => sockets.joined(user, workshopId);

/** Every card's SQL copy, by id. */
async function sqlCopy(workshopId: string) {
  const { cards } = t.tables;
  const rows = await t.db
    .select({ id: cards.id, position: cards.position, x: cards.x, y: cards.y })
    .from(cards)
    .where(eq(cards.workshopId, workshopId));
  return new Map(rows.map(({ id, ...placement }) => [id, placement]));
}

async function expectSqlToMatchDocument(workshopId: string) {
  expect(await sqlCopy(workshopId)).toEqual(await engineOf(t).cardPlacements(workshopId));
}

const moveCard = (workshopId: string, cardId: string, body: Record<string, unknown>, provokedFailure = false) =>
  t.request<CardOutput>('PUT', `/v1/workshops/${workshopId}/cards/${cardId}`, {
    token: facilitator.token,
    body,
    provokedFailure,
  });

/** Makes the next event row with that action fail, as a write failing late would. */
async function failEventsOf(action: string, workshopId: string): Promise<() => Promise<void>> {
  const name = sql.raw(`fail_${action}_${workshopId.replace(/\W/g, '_')}`);
  const when = sql.raw(`NEW.action = '${action}' AND NEW.workshop_id = '${workshopId}'`);
  // A trigger is written in each store's own dialect.
  if (testStore === 'postgres') {
    await t.write(
      sql`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'forced failure'; END $$`,
    );
    await t.write(
      sql`CREATE TRIGGER ${name} BEFORE INSERT ON events FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
    );
    return async () => {
      await t.write(sql`DROP TRIGGER ${name} ON events`);
      await t.write(sql`DROP FUNCTION ${name}()`);
    };
  }
  await t.write(
    sql`CREATE TRIGGER ${name} BEFORE INSERT ON events WHEN ${when} BEGIN SELECT RAISE(ABORT, 'forced failure'); END`,
  );
  return () => t.write(sql`DROP TRIGGER ${name}`);
}

describe('REST and client moves take the same path into SQL', () => {
  it('stores a REST move as a document update with its SQL copy, and a connected client sees it', async () => {
    const w = await workshop();
    const [a, b, c] = await inTurn(3, () => seedCard(t, w.id, facilitator, { type: 'cluster' }));
    const client = await connect(w.id, facilitator);
    const stored = await storedUpdateCount(t, w.id);

    const res = await moveCard(w.id, c!.id, { position: 0 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.position).toBe(0);
    expect(await storedUpdateCount(t, w.id)).toBe(stored + 1);
    expect(await sqlCopy(w.id)).toEqual(
      new Map([
        [c!.id, { position: 0, x: null, y: null }],
        [a!.id, { position: 1, x: null, y: null }],
        [b!.id, { position: 2, x: null, y: null }],
      ]),
    );
    await expectSqlToMatchDocument(w.id);
    await until(
      () => client.cards.get(c!.id)?.position === 0 && client.cards.get(b!.id)?.position === 2,
      'client sees the REST move',
    );

    // A client move takes the same way: one more stored update, SQL equal to the document.
    client.cards.set(a!.id, { position: 1, x: 40, y: 50 });
    await until(async () => (await sqlPlacement(t, a!.id)).x === 40, 'client move copied to SQL');
    expect(await storedUpdateCount(t, w.id)).toBe(stored + 2);
    await expectSqlToMatchDocument(w.id);
  });

  it('keeps x and y when REST moves a card, and moves cards between stacks, creates, merges and deletes through the document', async () => {
    const w = await workshop();
    const [one, two] = await inTurn(2, () => seedCard(t, w.id, facilitator, { type: 'cluster' }));
    const ideas = await inTurn(3, () => seedCard(t, w.id, facilitator, { parentId: one!.id }));
    const client = await connect(w.id, facilitator);
    client.cards.set(ideas[2]!.id, { position: 2, x: 7, y: 8 });
    await until(async () => (await sqlPlacement(t, ideas[2]!.id)).x === 7, 'client placement stored');

    expect((await moveCard(w.id, ideas[2]!.id, { parent: two!.id })).status).toBe(200);
    expect(await sqlPlacement(t, ideas[2]!.id)).toEqual({ position: 0, x: 7, y: 8 });
    const created = await t.request<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, {
      token: facilitator.token,
      body: { type: 'idea', title: 'New', parent: one!.id, position: 0 },
    });
    expect(created.status).toBe(201);
    expect(
      await Promise.all([ideas[0], ideas[1]].map(async (idea) => (await sqlPlacement(t, idea!.id)).position)),
    ).toEqual([1, 2]);
    const merged = await t.request('POST', `/v1/workshops/${w.id}/cards/merge`, {
      token: facilitator.token,
      body: { cards_id: [ideas[1]!.id, ideas[0]!.id] },
    });
    expect(merged.status, JSON.stringify(merged.body)).toBe(201);
    expect(
      (await t.request('DELETE', `/v1/workshops/${w.id}/cards/${created.body.id}`, { token: facilitator.token }))
        .status,
    ).toBe(204);
    await expectSqlToMatchDocument(w.id);
    await until(
      async () =>
        JSON.stringify(Object.keys(client.cards.toJSON()).sort()) ===
        JSON.stringify([...(await sqlCopy(w.id)).keys()].sort()),
      'client holds the same cards',
    );
    expect(new Map(Object.entries(client.cards.toJSON()))).toEqual(await sqlCopy(w.id));
  });
});

describe('a REST write failing after handing placements to the document', () => {
  it('leaves SQL, the stored updates and connected clients as they were; the document reloads from SQLite', async () => {
    const w = await workshop();
    const [a, b] = await inTurn(2, () => seedCard(t, w.id, facilitator, { type: 'cluster' }));
    const client = await connect(w.id, participant);
    const [sql, stored, seen] = [
      await sqlCopy(w.id),
      await storedUpdateCount(t, w.id),
      JSON.stringify(client.cards.toJSON()),
    ];

    // The updateCard event is recorded after the placements went to the document.
    const restore = await failEventsOf('updateCard', w.id);
    try {
      const res = await moveCard(w.id, b!.id, { position: 0 }, true);
      expect(res.status).toBe(500);
    } finally {
      await restore();
    }
    expect(await sqlCopy(w.id)).toEqual(sql);
    expect(await storedUpdateCount(t, w.id)).toBe(stored);
    expect((await engineOf(t).cardPlacements(w.id)).get(b!.id)?.position).toBe(1);
    // The client was asked to reconnect (the document it synced with was dropped) and never saw the move.
    await until(() => client.closes.length > 0 && client.provider.synced, 'client reconnected');
    // The failed move must not arrive late either.
    await quietFor(100, 'no trace of the failed move reaches the client');
    expect(JSON.stringify(client.cards.toJSON())).toBe(seen);

    // And the next move works as usual.
    expect((await moveCard(w.id, a!.id, { position: 1 })).status).toBe(200);
    await until(() => client.cards.get(a!.id)?.position === 1, 'client sees the next move');
    await expectSqlToMatchDocument(w.id);
  });

  it('leaves the cards and the document of a CSV import that fails late unchanged', async () => {
    const w = await workshop();
    const kept = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const client = await connect(w.id, facilitator);
    const [sql, stored] = [await sqlCopy(w.id), await storedUpdateCount(t, w.id)];

    const restore = await failEventsOf('importCards', w.id);
    try {
      const form = new FormData();
      form.append(
        'file',
        new Blob(['type,title,cluster\ncluster,Imported,\nidea,Inside,Imported\n'], { type: 'text/csv' }),
        'cards.csv',
      );
      const res = await t.request('PUT', `/v1/workshops/${w.id}/cards`, {
        token: facilitator.token,
        rawBody: form,
        provokedFailure: true,
      });
      expect(res.status).toBe(500);
    } finally {
      await restore();
    }
    expect(await sqlCopy(w.id)).toEqual(sql);
    expect(await storedUpdateCount(t, w.id)).toBe(stored);
    expect([...(await engineOf(t).cardPlacements(w.id)).keys()]).toEqual([kept.id]);
    await until(() => client.closes.length > 0 && client.provider.synced, 'client reconnected');
    expect(Object.keys(client.cards.toJSON())).toEqual([kept.id]);
  });
});

describe('what a move leaves in the log', () => {
  it('logs a client move as one moveCards with the placements it changed, listed by GET /events and sent as workshop:event', async () => {
    const w = await workshop();
    const [a, b, c] = await inTurn(3, () => seedCard(t, w.id, facilitator, { type: 'cluster' }));
    const [mover, screen] = await Promise.all([connect(w.id, participant), live(w.id, facilitator)]);
    await seedCurrentStep(t, w.id, { allow_edit: 'all' });

    mover.cards.set(c!.id, { position: 0, x: 12, y: 34 });
    const event = await screen.next('workshop:event', (p) => p.action === 'moveCards');
    const placements = {
      [c!.id]: { position: 0, x: 12, y: 34 },
      [a!.id]: { position: 1, x: null, y: null },
      [b!.id]: { position: 2, x: null, y: null },
    };
    expect(event).toMatchObject({ workshop_id: w.id, action: 'moveCards', change: { placements } });
    const logged = (await eventLog(t, w.id)).filter((row) => row.action === 'moveCards');
    expect(logged).toHaveLength(1);
    expect(event.seq).toBe(logged[0]!.seq);
    expect(logged[0]!.userId).toBe(participant.id);

    const list = await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events`, { token: participant.token });
    expect(list.status).toBe(200);
    expect(list.body[0]).toMatchObject({ action: 'moveCards', change: { placements }, user: { id: participant.id } });
  });

  it('logs a REST move once, as updateCard with its position change, and no moveCards', async () => {
    const w = await workshop();
    const [, b] = await inTurn(2, () => seedCard(t, w.id, facilitator, { type: 'cluster' }));
    await connect(w.id, participant);
    const before = (await eventLog(t, w.id)).length;
    expect((await moveCard(w.id, b!.id, { position: 0 })).status).toBe(200);
    const added = (await eventLog(t, w.id)).slice(before);
    expect(added.map((row) => row.action)).toEqual(['updateCard']);
    expect((added[0]!.change as any).changes).toEqual({ position: [1, 0] });
  });

  it('records nothing for a client change the server put back entirely', async () => {
    const w = await workshop();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    await seedCurrentStep(t, w.id, { allow_edit: 'their' });
    const [mover, screen] = await Promise.all([connect(w.id, participant), live(w.id, participant)]);
    const [events, stored] = [(await eventLog(t, w.id)).length, await storedUpdateCount(t, w.id)];

    mover.cards.set(card.id, { position: 0, x: 99, y: 99 });
    await until(async () => (await storedUpdateCount(t, w.id)) > stored, 'update and repair stored');
    await until(() => mover.cards.get(card.id)?.x === null, 'repair reaches the mover');
    // A refused move is neither logged nor announced; give a stray event the time to show.
    await quietFor(100, 'no log entry or event for the refused move');
    expect(await eventLog(t, w.id)).toHaveLength(events);
    expect(screen.all('workshop:event')).toEqual([]);
    expect(await sqlPlacement(t, card.id)).toEqual({ position: 0, x: null, y: null });
  });

  it('logs a facilitator zone edit as updateZone, with its changes', async () => {
    const w = await workshop();
    const zone = (await seedCanvas(t, w.id))[0]!;
    const [editor, screen] = await Promise.all([connect(w.id, facilitator), live(w.id, participant)]);

    editor.zones.set(zone, { name: 'Renamed', x: 2, y: 0, rows: 4, cols: 6, cluster_id: null });
    const event = await screen.next('workshop:event', (p) => p.action === 'updateZone');
    expect(event.change).toEqual({
      zone: { id: zone, name: 'Renamed', x: 2, y: 0, rows: 4, cols: 6, cluster_id: null },
      changes: { name: ['Zone 0', 'Renamed'], x: [0, 2] },
    });
  });
});
