import { describe, expect, it, vi } from 'vitest';
import { CollabEngine } from '../src/collab/engine';
import type { CollabExtension } from '../src/collab/hooks';
import type { LayoutCopy } from '../src/collab/types';
import { zoneCopy } from '../src/modules/canvas/zone-copy';
import { placementCopy } from '../src/modules/cards/placement-copy';
import { write, writeWorkshop } from '../src/db/write';
import { useDocs, useServer, useUsers } from './helpers/cast';
import { engineOf, rawMember, seedCanvas } from './helpers/collab';
import { seedCard, seedWorkshopWith } from './helpers/factories';
import { quietFor, until } from './helpers/wait';

/*
 * The documents' locks (`src/collab/locks.ts`) around the database: who waits for whom, for how
 * long, and what a client is told when a document it was joining went away meanwhile.
 */

const t = useServer();
const [facilitator, participant] = useUsers(t, 'Fran', 'Pat');
const docs = useDocs(t);

describe('joining a document that goes away meanwhile', () => {
  it('tells the client to reconnect (1011), not that it may not (4404), and the reconnect syncs', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    // A REST write loads the document and holds it until it rolls back.
    let rollBack!: () => void;
    const rolledBack = new Promise<void>((resolve) => (rollBack = resolve));
    const writing = write(t.deps, async (tx, changes) => {
      await t.deps.collab.placeCards({ tx, changes }, w.id, { placements: { [card.id]: { x: 5, y: 5 } } });
      await rolledBack;
      throw new Error('rolled back on purpose');
    });
    await until(() => engineOf(t).loadedDocuments().includes(w.id), 'the document loaded by the write');

    // A member connects meanwhile: checked, it waits for the document's lock to join it.
    const raw = await rawMember(t, w.id, participant.token);
    await until(() => engineOf(t).lockQueue(w.id) === 2, 'the connection waiting for the document to join it');
    rollBack();
    await expect(writing).rejects.toThrow('rolled back on purpose');
    // The document went with the write; the member may still use it.
    expect((await raw.closed).code).toBe(1011);

    const client = await docs.synced(w.id, participant);
    expect(client.closes).toEqual([]);
    expect(client.cards.get(card.id)).toMatchObject({ x: null, y: null });
  });
});

describe('the order of locks', () => {
  it("takes the workshop's row before the document's lock, even for a write that did not lock the row first", async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    const [first, second] = [
      await seedCard(t, w.id, facilitator, { type: 'cluster' }),
      await seedCard(t, w.id, facilitator, { type: 'cluster' }),
    ];
    // One write holds the workshop's row (as every write to a workshop does first) and moves a card
    // a moment later; meanwhile another, which never locked the row, moves a card too.
    let goOn!: () => void;
    const later = new Promise<void>((resolve) => (goOn = resolve));
    const rowFirst = writeWorkshop(t.deps, w.id, async (tx, changes) => {
      await later;
      await t.deps.collab.placeCards({ tx, changes }, w.id, { placements: { [first.id]: { x: 1, y: 1 } } });
    });
    const unlocked = write(t.deps, (tx, changes) =>
      t.deps.collab.placeCards({ tx, changes }, w.id, { placements: { [second.id]: { x: 2, y: 2 } } }),
    );
    await quietFor(200, 'the second write reaching the document');
    goOn();
    // Had the second taken the document's lock first, each would wait for the other's lock.
    await expect(Promise.all([rowFirst, unlocked])).resolves.toBeDefined();
    const placements = await engineOf(t).cardPlacements(w.id);
    expect(placements.get(first.id)).toMatchObject({ x: 1, y: 1 });
    expect(placements.get(second.id)).toMatchObject({ x: 2, y: 2 });
  });
});

describe('waiting for a document', () => {
  it('answers a read waiting for a document a stuck write holds with 503 after about a second', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    await seedCanvas(t, w.id);
    // A 503 is provoked here: the canvas read does not list it among its documented answers.
    const reading = () => t.request('GET', `/v1/workshops/${w.id}/canvas`, { token: participant.token });
    expect((await reading()).status).toBe(200);

    // A write holds the document (loaded through it) for 2.5 s, as a stuck one would.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const writing = writeWorkshop(t.deps, w.id, async (tx, changes) => {
      await t.deps.collab.zones({ tx, changes }, w.id);
      await released;
    });
    const letGo = setTimeout(release, 2_500);
    try {
      await until(() => engineOf(t).loadedDocuments().includes(w.id), 'the document loaded by the write');
      const started = Date.now();
      const res = await reading();
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).not.toBeNull();
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      clearTimeout(letGo);
      release();
      await writing;
    }
    expect((await reading()).status).toBe(200);
  });
});

describe('a document loaded inside a write that rolls back', () => {
  it('is dropped with the write, even before it was brought in line with SQL, and loads and is announced on next use', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    await seedCard(t, w.id, facilitator, { type: 'cluster' });
    // An engine of its own over the server's database, whose first read of the SQL copy fails:
    // the write fails after loading the document, before anything changed it.
    const layout: LayoutCopy = { ...placementCopy(), ...zoneCopy() };
    let failures = 1;
    const failing: LayoutCopy = {
      ...layout,
      cards: (db, workshopId) =>
        failures-- > 0 ? Promise.reject(new Error('forced failure')) : layout.cards(db, workshopId),
    };
    const loads: string[] = [];
    const listener: CollabExtension = { onLoadDocument: (entry) => void loads.push(entry.workshopId) };
    const { config, database, bus, auth } = t.deps;
    const engine = new CollabEngine({ config, database, bus, auth, layout: failing }, {}, [listener]);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const zonesInWrite = () => writeWorkshop(t.deps, w.id, (tx, changes) => engine.zones({ tx, changes }, w.id));
      await expect(zonesInWrite()).rejects.toThrow('forced failure');
      // Left loaded, it would never be announced: no Redis subscription, other instances' moves never applied.
      expect(engine.loadedDocuments()).not.toContain(w.id);
      expect(loads).toEqual([]);

      await zonesInWrite();
      expect(engine.loadedDocuments()).toContain(w.id);
      expect(loads).toEqual([w.id]);
    } finally {
      logged.mockRestore();
      await engine.close();
    }
  });
});
