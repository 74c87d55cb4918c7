import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { WorkshopEvent } from '../src/domain/bus';
import { useDocs, useRedis, useUsers, useInstances } from './helpers/cast';
import { engineOf, seedCanvas, sqlPlacement, sqlZone } from './helpers/collab';
import { seedCard, seedWorkshop, seedWorkshopWith } from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import type { TestServer } from './helpers/server';
import { until } from './helpers/wait';

/*
 * Several instances on one store and one Redis: what one stores, the others apply. An update is
 * stored before it is relayed, and every instance reads it back without skipping one
 * (docs/operations.md#what-holds-the-rules-across-instances). The instance storing an update
 * writes its SQL copy; the others only apply it.
 */

/**
 * Another connection, as another instance's write would hold it: opened now, taking the
 * workshop's row (SQLite: the whole file's write lock) only when `take` is called, which sends
 * the statement at once, so the lock is asked for before anything the caller triggers next.
 */
async function rowLocker(t: TestServer, workshopId: string) {
  const { databaseUrl, databasePath } = t.deps.config;
  if (!databaseUrl) {
    const other = new Database(databasePath);
    other.pragma('busy_timeout = 0');
    return {
      take: async () => void other.exec('BEGIN IMMEDIATE'),
      release: async () => {
        if (other.inTransaction) other.exec('ROLLBACK');
        other.close();
      },
    };
  }
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  await other.query('BEGIN');
  return {
    take: async () => void (await other.query('SELECT 1 FROM workshops WHERE id = $1 FOR UPDATE', [workshopId])),
    release: async () => {
      await other.query('ROLLBACK');
      await other.end();
    },
  };
}

describe.skipIf(!redisAvailable)('Yjs updates between instances', () => {
  const redis = useRedis();
  const [a, b, c] = useInstances(3, () => ({ redisUrl: redis.url }));
  const [fay, pat] = useUsers(a, 'Fay', 'Pat');
  const docs = useDocs(a);

  /** Every instance of `servers` holds the document and Redis counts each one's subscription. */
  async function loadedOn(servers: TestServer[], workshopId: string) {
    await until(
      () => servers.every((server) => engineOf(server).loadedDocuments().includes(workshopId)),
      'loaded on every instance',
    );
    await until(
      async () => (await redis.subscribers(`collab:${workshopId}`)) === servers.length,
      'every instance subscribed in Redis',
    );
  }

  it("applies another instance's move, and relays it to its clients, while the workshop's row is held by a write", async () => {
    const w = await seedWorkshop(a, fay);
    const card = await seedCard(a, w.id, fay, { type: 'cluster' });
    const onA = await docs.synced(w.id, fay, a);
    const onB = await docs.synced(w.id, fay, b);
    await loadedOn([a, b], w.id);

    // Right after B commits the move, before B publishes it, another write takes the workshop's row.
    const locker = await rowLocker(a, w.id);
    let taken: Promise<void> | undefined;
    const takeOnCommit = (event: WorkshopEvent) => {
      if (event.workshopId === w.id && event.action === 'moveCards') taken ??= locker.take();
    };
    b.deps.bus.on('workshop', takeOnCommit);
    try {
      onB.cards.set(card.id, { position: 0, x: 7, y: 8 });
      await until(() => taken !== undefined, 'B stored the move');
      await taken;
      // Stored with its SQL copy by B: A has nothing to write, and shows it at once.
      await until(() => onA.cards.get(card.id)?.x === 7, "the move on A's client while the row is held", 900);
    } finally {
      b.deps.bus.off('workshop', takeOnCommit);
      await locker.release();
    }
    expect(await sqlPlacement(a, card.id)).toEqual({ position: 0, x: 7, y: 8 });
  });

  it('converges on three instances moving the same cards at once, in the documents and the SQL copy, and the stored updates alone load the same', async () => {
    const w = await seedWorkshopWith(a, fay, [pat]);
    const cards = [
      await seedCard(a, w.id, fay, { type: 'cluster', title: 'Contested' }),
      await seedCard(a, w.id, fay, { type: 'cluster', title: 'Also contested' }),
    ];
    const instances = [a, b, c];
    const clients = await Promise.all(instances.map((server) => docs.synced(w.id, fay, server)));
    await loadedOn(instances, w.id);
    // Each round, every instance's client moves both cards before hearing of the others' moves:
    // the same keys set concurrently on three instances, which Yjs settles the same way everywhere.
    for (let round = 0; round < 10; round++) {
      clients.forEach((client, i) => {
        for (const card of cards)
          client.cards.set(card.id, { ...(client.cards.get(card.id) as object), x: round * 100 + i, y: i });
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const sorted = (entries: Iterable<[string, unknown]>) =>
      JSON.stringify(Object.fromEntries([...entries].sort(([x], [y]) => (x < y ? -1 : 1))));
    await until(
      () => new Set(clients.map((client) => sorted(client.cards.entries()))).size === 1,
      'the three clients agree',
    );
    const agreed = sorted(clients[0]!.cards.entries());
    for (const server of instances) {
      await until(
        async () => sorted(await engineOf(server).cardPlacements(w.id)) === agreed,
        'the instance document agrees',
      );
    }
    const { cards: table } = a.tables;
    const copy = async () =>
      sorted(
        (await a.db.select().from(table).where(eq(table.workshopId, w.id))).map((row) => [
          row.id,
          { position: row.position, x: row.x, y: row.y },
        ]),
      );
    expect(await copy()).toBe(agreed);

    // Every instance drops its copy without compacting it: loading again reads only what was stored.
    for (const client of clients) client.destroy();
    for (const server of instances) await engineOf(server).unloadNow(w.id, { compact: false });
    for (const server of instances) expect(engineOf(server).loadedDocuments()).not.toContain(w.id);
    for (const server of instances) expect(sorted(await engineOf(server).cardPlacements(w.id))).toBe(agreed);
    expect(await copy()).toBe(agreed);
  }, 30_000);

  it('does not leave a cluster in two zones when facilitators on two instances drop it into different zones at once', async () => {
    const w = await seedWorkshop(a, fay);
    const [left, right] = await seedCanvas(a, w.id, 2);
    const cluster = await seedCard(a, w.id, fay, { type: 'cluster' });
    const [onA, onB] = [await docs.synced(w.id, fay, a), await docs.synced(w.id, fay, b)];
    await loadedOn([a, b], w.id);
    await until(() => [onA, onB].every((client) => client.zones.size === 2 && client.cards.has(cluster.id)), 'loaded');
    // Both drop (as the console does: place, link) before hearing of the other's drop.
    for (const [client, zoneId, x] of [
      [onA, left!, 2],
      [onB, right!, 8],
    ] as const)
      client.doc.transact(() => {
        client.cards.set(cluster.id, { ...client.cards.get(cluster.id), x, y: 1 });
        client.zones.set(zoneId, { ...client.zones.get(zoneId), cluster_id: cluster.id });
      });

    const linked = (zones: Iterable<[string, { cluster_id: string | null }]>) =>
      [...zones].filter(([, zone]) => zone.cluster_id === cluster.id).map(([id]) => id);
    await until(
      () =>
        linked(onA.zones.entries()).length === 1 &&
        isDeepStrictEqual(onA.zones.toJSON(), onB.zones.toJSON()) &&
        isDeepStrictEqual(onA.cards.toJSON(), onB.cards.toJSON()),
      'one link, the same on both instances',
    );
    // The zone holding the placement the merge kept keeps the link, on every copy and in SQL.
    const kept = onA.cards.get(cluster.id).x < 6 ? left! : right!;
    expect(linked(onA.zones.entries())).toEqual([kept]);
    for (const server of [a, b]) expect(linked((await server.deps.collab.zonesIfLoaded(w.id))!)).toEqual([kept]);
    for (const zoneId of [left!, right!])
      expect((await sqlZone(a, zoneId)).cluster_id).toBe(zoneId === kept ? cluster.id : null);
  });
});
