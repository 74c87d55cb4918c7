import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useServer, useUsers, useInstances } from './helpers/cast';
import { seedCard, seedWorkshopWith, type TestUser } from './helpers/factories';
import { holdWriteLock } from './helpers/locks';
import { recordStatements, transactionsIn } from './helpers/statements';
import { testStore } from './helpers/store';

/*
 * Votes on any number of workshops are written in shared batches (`writeBatched`). On PostgreSQL
 * a workshop another transaction holds for long (a big import, another instance) must neither
 * fail nor hold up the votes on other workshops that share its batches. SQLite's single writer
 * holds the whole file, for every workshop alike: nothing of this applies there.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(testStore !== 'postgres')('votes while one workshop is held by another transaction', () => {
  const t = useServer();
  const [fay, pat] = useUsers(t, 'Fay', 'Pat');

  async function votable() {
    const workshop = await seedWorkshopWith(t, fay, [pat], { voteMaxPositive: 1_000 });
    const card = await seedCard(t, workshop.id, fay, { type: 'cluster' });
    return { workshopId: workshop.id, path: `/v1/workshops/${workshop.id}/cards/${card.id}/votes` };
  }

  async function timedVote(path: string, user: TestUser) {
    const sent = Date.now();
    const res = await t.request('POST', path, { token: user.token, body: { value: 1 } });
    return { status: res.status, took: Date.now() - sent };
  }

  it('writes the votes on the other workshops at once, and those on the held one once it is free or with 503', async () => {
    const held = await votable();
    const others = [await votable(), await votable(), await votable()];
    const lock = await holdWriteLock(t, { table: 'workshops', column: 'id', value: held.workshopId });
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await lock.release();
    };
    // Held for about 2 s: longer than a write waits for a lock.
    const releasing = sleep(2_000).then(release);
    try {
      // Steady voting for 1.5 s: each round one vote on the held workshop and one on each other,
      // sent together, so that every batch holds the held workshop.
      const rounds = [];
      for (let round = 0; round < 30; round++) {
        rounds.push(Promise.all([timedVote(held.path, pat), ...others.map((other) => timedVote(other.path, pat))]));
        await sleep(50);
      }
      const answered = await Promise.all(rounds);
      const onOthers = answered.flatMap(([, ...rest]) => rest);
      expect(onOthers.map((vote) => vote.status)).toEqual(Array(onOthers.length).fill(201));
      // Not one waited for the held workshop's lock (a second).
      expect(Math.max(...onOthers.map((vote) => vote.took))).toBeLessThan(800);

      const onHeld = answered.map(([vote]) => vote!);
      expect(onHeld.every((vote) => vote.status === 201 || vote.status === 503)).toBe(true);
      // The first ones waited their second in vain.
      expect(onHeld[0]!.status).toBe(503);
      await releasing;
      expect((await timedVote(held.path, pat)).status).toBe(201);

      // What was answered 201 was written, and nothing else.
      const { votes } = t.tables;
      const written = await t.db.select().from(votes).where(eq(votes.workshopId, held.workshopId));
      expect(written).toHaveLength(onHeld.filter((vote) => vote.status === 201).length + 1);
      for (const other of others)
        expect(await t.db.select().from(votes).where(eq(votes.workshopId, other.workshopId))).toHaveLength(30);
    } finally {
      await releasing;
      await release();
    }
  }, 30_000);
});

describe.skipIf(testStore !== 'postgres')('votes from two instances on the same workshops', () => {
  const [a, b] = useInstances(2);
  const [fay, pat] = useUsers(a, 'Fay', 'Pat');

  it("stay batched: a batch finding its workshops held by the other instance's batch tries again, not one transaction per workshop", async () => {
    const paths: string[] = [];
    for (let w = 0; w < 4; w++) {
      const workshop = await seedWorkshopWith(a, fay, [pat], { voteMaxPositive: 10_000, votePositive: -1 });
      paths.push(
        `/v1/workshops/${workshop.id}/cards/${(await seedCard(a, workshop.id, fay, { type: 'cluster' })).id}/votes`,
      );
    }
    const recording = recordStatements();
    let statuses: number[] = [];
    let transactions: string[][];
    try {
      // Rounds of two votes per workshop through each instance, sent together: both instances' batches want every workshop.
      for (let round = 0; round < 40; round++) {
        const votes = [a, b].flatMap((instance) =>
          paths.flatMap((path) =>
            [1, 2].map(() => instance.request('POST', path, { token: pat.token, body: { value: 1 } })),
          ),
        );
        statuses = statuses.concat((await Promise.all(votes)).map((res) => res.status));
      }
    } finally {
      transactions = transactionsIn(recording.stop());
    }
    expect(statuses).toEqual(Array(40 * 16).fill(201));
    // A request written apart is a transaction that waits for its workshop's lock (no SKIP LOCKED).
    const apart = transactions.filter((statements) =>
      statements.some((sql) => /for update/i.test(sql) && !/skip locked/i.test(sql)),
    );
    expect(apart.length).toBeLessThanOrEqual(statuses.length / 20);
  }, 30_000);

  it('answers a vote on a workshop that does not exist with its batch: 404, no retry, no lock waited for', async () => {
    const recording = recordStatements();
    let status: number;
    let seen: ReturnType<typeof recording.stop>;
    try {
      status = (
        await a.request('POST', '/v1/workshops/AAAAAAAAAAAAAAAAAAAAAA/cards/AAAAAAAAAAAAAAAAAAAAAA/votes', {
          token: pat.token,
          body: { value: 1 },
        })
      ).status;
    } finally {
      seen = recording.stop();
    }
    expect(status).toBe(404);
    const transactions = transactionsIn(seen);
    expect(transactions.filter((body) => body.some((sql) => /skip locked/i.test(sql)))).toHaveLength(1);
    expect(
      transactions.filter((body) => body.some((sql) => /for update/i.test(sql) && !/skip locked/i.test(sql))),
    ).toHaveLength(0);
  });
});
