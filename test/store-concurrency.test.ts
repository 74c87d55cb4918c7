import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ExportOutput } from '../src/domain/events';
import { startMailSender } from '../src/modules/mail/sender';
import { queueDailyDigests } from '../src/modules/mail/digest';
import { digestTime } from './helpers/digest-time';
import { useDocs, useRedis, useSockets, useUsers, useInstances } from './helpers/cast';
import { engineOf, syncedDoc } from './helpers/collab';
import { createUser, eventLog, seedCard, seedWorkshopWith, type TestUser } from './helpers/factories';
import { redisAvailable } from './helpers/redis';
import { startSmtp } from './helpers/smtp';
import { answeredBeyond503, until } from './helpers/wait';

/*
 * The rules that hold across instances (docs/operations.md#what-holds-the-rules-across-instances)
 * with three instances on one store, writing at the same time:
 * on PostgreSQL (the `postgres` project) row locks and SKIP LOCKED claims keep them, on SQLite the
 * file's single writer does. Redis carries live events and document updates between instances.
 *
 * Among the slowest files (15 to 25 s on each store): a race only shows with enough contenders,
 * so each case is big on purpose: 400 mails taken by 8 senders on three instances, 20 exports
 * rendered through three instances, 100 votes at once against a budget of 10, round after round.
 */

describe.skipIf(!redisAvailable)('three instances on one store', () => {
  const redis = useRedis();
  const [a, b, c] = useInstances(3, () => ({ redisUrl: redis.url }));
  const instances = () => [a, b, c];
  const [fay, pat] = useUsers(a, 'Fay', 'Pat');
  const sockets = useSockets(a);
  const docs = useDocs(a);

  it('lets exactly 10 of 100 concurrent votes through a budget of 10, round after round', async () => {
    for (let round = 0; round < 20; round++) {
      const workshop = await seedWorkshopWith(a, fay, [pat], { votePositive: 10, voteMaxPositive: 10 });
      const card = await seedCard(a, workshop.id, fay, { type: 'cluster' });
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          instances()[i % 3]!.request('POST', `/v1/workshops/${workshop.id}/cards/${card.id}/votes`, {
            token: pat.token,
            body: { value: 1 },
          }),
        ),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(
        statuses.filter((s) => s === 201),
        `round ${round}`,
      ).toHaveLength(10);
      expect(
        statuses.filter((s) => s === 409),
        `round ${round}`,
      ).toHaveLength(90);
      const { votes } = a.tables;
      expect(await a.db.select().from(votes).where(eq(votes.workshopId, workshop.id))).toHaveLength(10);
    }
  }, 120_000);

  it('writes votes on 20 workshops arriving together, each workshop numbered on its own', async () => {
    const workshops = [];
    for (let i = 0; i < 20; i++)
      workshops.push(await seedWorkshopWith(a, fay, [pat], { votePositive: 3, voteMaxPositive: 3 }));
    const cards: Array<{ id: string }> = [];
    for (const workshop of workshops) cards.push(await seedCard(a, workshop.id, fay, { type: 'cluster' }));
    const answers = await Promise.all(
      workshops.flatMap((workshop, i) =>
        Array.from({ length: 5 }, (_, j) =>
          instances()[(i + j) % 3]!.request('POST', `/v1/workshops/${workshop.id}/cards/${cards[i]!.id}/votes`, {
            token: pat.token,
            body: { value: 1 },
          }),
        ),
      ),
    );
    expect(answers.filter((res) => res.status === 201)).toHaveLength(60);
    expect(answers.filter((res) => res.status === 409)).toHaveLength(40);
    for (const workshop of workshops)
      expect((await eventLog(a, workshop.id)).map((event) => event.seq)).toEqual([1, 2, 3]);
  });

  it('numbers the writes of 3 × 20 writers on one workshop 1..N, and every socket hears and replays exactly the log', async () => {
    const workshop = await seedWorkshopWith(a, fay, [pat]);
    const listeners = await Promise.all(instances().map((server) => sockets.joined(pat, workshop.id, server)));
    const writes = instances().flatMap((server, i) =>
      Array.from({ length: 20 }, (_, j) =>
        // Sixty writes queue on one workshop's lock: on a busy machine one may wait past the lock's
        // limit and answer 503 having written nothing, and is sent again, as a client would.
        answeredBeyond503(() =>
          server.request('POST', `/v1/workshops/${workshop.id}/cards`, {
            token: fay.token,
            body: { type: 'cluster', title: `Card ${i}.${j}` },
          }),
        ),
      ),
    );
    expect((await Promise.all(writes)).map((res) => res.status)).toEqual(Array(60).fill(201));

    const log = (await eventLog(a, workshop.id)).map((event) => event.seq);
    expect(log).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const numbers = (await a.db.select().from(a.tables.cards).where(eq(a.tables.cards.workshopId, workshop.id)))
      .map((card) => card.number)
      .sort((x, y) => x - y);
    expect(numbers).toEqual(log);

    for (const listener of listeners) {
      // Live, from all three instances: every change once (the order across instances may differ).
      await until(() => new Set(listener.seqs(workshop.id)).size === 60, 'every change heard live');
      expect(
        listener
          .all('card:created')
          .map((event) => event.seq)
          .sort((x, y) => x - y),
      ).toEqual(log);
      // A resume from the start replays the log itself, in order.
      listener.clear();
      const ack = await listener.join(workshop.id, 0);
      expect(ack).toMatchObject({ ok: true, seq: 60, replayed: 60 });
      expect(listener.seqs(workshop.id)).toEqual(log);
    }
  }, 60_000);

  it('keeps the documents and the SQL copy together through concurrent moves on three instances and compactions', async () => {
    const workshop = await seedWorkshopWith(a, fay, [pat]);
    const cards = [];
    for (let i = 0; i < 6; i++)
      cards.push(await seedCard(a, workshop.id, fay, { type: 'cluster', title: `Cluster ${i}` }));
    for (const server of instances()) engineOf(server).options.compactAfter = 5;
    const clients = await Promise.all(
      instances().map(async (server) => docs.track(await syncedDoc(server, workshop.id, fay.token))),
    );
    for (let step = 0; step < 30; step++) {
      const client = clients[step % 3]!;
      const card = cards[step % cards.length]!;
      client.doc.transact(() =>
        client.cards.set(card.id, { ...(client.cards.get(card.id) as object), x: step * 10 + (step % 3), y: step }),
      );
      if (step % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const sorted = (entries: Iterable<[string, unknown]>) =>
      JSON.stringify(Object.fromEntries([...entries].sort(([x], [y]) => (x < y ? -1 : 1))));
    await until(
      () => new Set(clients.map((client) => sorted(client.cards.entries()))).size === 1,
      'the three clients agree',
    );
    const agreed = JSON.parse(sorted(clients[0]!.cards.entries())) as Record<
      string,
      { position: number; x: number | null; y: number | null }
    >;

    // Each instance's document holds the same placements, and so does the SQL copy.
    for (const server of instances()) {
      await until(
        async () => sorted(await engineOf(server).cardPlacements(workshop.id)) === JSON.stringify(agreed),
        'the instance document agrees',
      );
    }
    const { cards: table } = a.tables;
    await until(async () => {
      const rows = await a.db.select().from(table).where(eq(table.workshopId, workshop.id));
      return rows.every((row) => {
        const placed = agreed[row.id];
        return placed !== undefined && placed.position === row.position && placed.x === row.x && placed.y === row.y;
      });
    }, 'the SQL copy agrees');
    // Compaction ran, and left no update it merged behind.
    const { yjsDocuments, yjsUpdates } = a.tables;
    expect(await a.db.select().from(yjsDocuments).where(eq(yjsDocuments.workshopId, workshop.id))).toHaveLength(1);
    expect((await a.db.select().from(yjsUpdates).where(eq(yjsUpdates.workshopId, workshop.id))).length).toBeLessThan(
      30,
    );
  }, 60_000);

  it('renders each of 20 exports requested through three instances once', async () => {
    const owners: TestUser[] = [];
    for (let i = 0; i < 4; i++) owners.push(await createUser(a, `Owner ${i}`));
    const workshops = [];
    for (const owner of owners) workshops.push({ owner, workshop: await seedWorkshopWith(a, owner, []) });
    const requests = workshops.flatMap(({ owner, workshop }, i) =>
      Array.from({ length: 5 }, (_, j) =>
        instances()[(i + j) % 3]!.request<ExportOutput>('POST', `/v1/workshops/${workshop.id}/exports`, {
          token: owner.token,
          body: { type: 'csv' },
        }),
      ),
    );
    const created = await Promise.all(requests);
    expect(created.map((res) => res.status)).toEqual(Array(20).fill(201));
    const ids = created.map((res) => res.body.id);
    const { workshopExports } = a.tables;
    await until(
      async () =>
        (
          await a.db
            .select()
            .from(workshopExports)
            .where(and(inArray(workshopExports.id, ids), eq(workshopExports.state, 'success')))
        ).length === 20,
      'every export made',
      30_000,
    );
    const rows = await a.db.select().from(workshopExports).where(inArray(workshopExports.id, ids));
    // Taken once each: no instance rendered another's.
    expect(rows.map((row) => row.attempts)).toEqual(Array(20).fill(1));
    expect(new Set(rows.map((row) => row.fileKey)).size).toBe(20);
  }, 60_000);

  it('sends each of 400 mails once with 8 senders on three instances', async () => {
    const smtp = await startSmtp();
    const { outbox } = a.tables;
    const addresses = Array.from({ length: 400 }, (_, i) => `reader${i}@example.com`);
    await a.write(async (tx, s) => {
      for (let at = 0; at < addresses.length; at += 100) {
        await tx
          .insert(s.outbox)
          .values(addresses.slice(at, at + 100).map((to) => ({ to, subject: 'Hello', text: `Hello ${to}` })));
      }
    });
    const senders = Array.from({ length: 8 }, (_, i) => {
      const deps = instances()[i % 3]!.deps;
      return startMailSender({ ...deps, config: { ...deps.config, smtpUrl: smtp.url } });
    });
    try {
      await until(
        async () =>
          (
            await a.db
              .select()
              .from(outbox)
              .where(and(inArray(outbox.to, addresses), isNotNull(outbox.sentAt)))
          ).length === 400,
        'every mail sent',
        60_000,
      );
    } finally {
      await Promise.all(senders.map((sender) => sender.stop()));
      await smtp.close();
    }
    const delivered = smtp.received.flatMap((mail) => mail.to).filter((to) => to.startsWith('reader'));
    expect(delivered).toHaveLength(400);
    expect(new Set(delivered).size).toBe(400);
  }, 90_000);

  it('queues the daily digest once when three instances start it at the same moment', async () => {
    const host = await createUser(a, 'Host');
    const reader = await createUser(a, 'Reader');
    const workshop = await seedWorkshopWith(a, host, [reader]);
    expect(
      (
        await a.request('POST', `/v1/workshops/${workshop.id}/cards`, {
          token: host.token,
          body: { type: 'cluster', title: 'Today' },
        })
      ).status,
    ).toBe(201);
    // Just after the next 07:00 (UTC, everyone's zone here): the day that digest covers holds the card.
    const now = digestTime();
    const reports = await Promise.all(instances().map((server) => queueDailyDigests(server.deps, now)));
    expect(reports.filter((report) => report.ran)).toHaveLength(1);
    const { outbox } = a.tables;
    const digests = (await a.db.select().from(outbox)).filter((mail) => mail.subject.startsWith('What happened'));
    expect(
      digests
        .filter((mail) => mail.to === host.email || mail.to === reader.email)
        .map((mail) => mail.to)
        .sort(),
    ).toEqual([host.email, reader.email].sort());
    // One set: no member got the same digest twice.
    expect(new Set(digests.map((mail) => `${mail.to}\n${mail.text}`)).size).toBe(digests.length);
  });
});
