import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../src/db/database';
import type { VoteOutput } from '../src/domain/votes';
import {
  eventLog,
  expectError,
  seedCard,
  seedCurrentStep,
  type TestUser,
  seedCardScene,
  errorOf,
  createUser,
  seedMember,
  seedWorkshop,
} from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useCast } from './helpers/cast';

const cast = useCast();
const { facilitator, participant, other, stranger } = cast;
const t = cast.t;

/** A workshop with a cluster and an idea in it, the facilitator and two participants. */
async function scene(limits: Partial<Schema['workshops']['$inferInsert']> = {}) {
  const { workshop, card: cluster } = await seedCardScene(cast, 'votes', limits);
  const idea = await seedCard(t, workshop.id, participant, { parentId: cluster.id });
  const base = `/v1/workshops/${workshop.id}/cards`;
  return {
    workshop,
    cluster,
    idea,
    ideaVotes: `${base}/${idea.id}/votes`,
    clusterVotes: `${base}/${cluster.id}/votes`,
  };
}

const vote = (path: string, user: TestUser, value: unknown) =>
  t.request<VoteOutput>('POST', path, { token: user.token, body: { value } });
const voteRows = (workshopId: string) =>
  t.db.select().from(t.tables.votes).where(eq(t.tables.votes.workshopId, workshopId));

describe('votes', () => {
  it('casts, reads, changes and withdraws a vote, logging each change', async () => {
    const s = await scene();
    const created = await vote(s.ideaVotes, participant, 2);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), value: 2, user_id: participant.id });
    const id = created.body.id;

    const list = await t.request<VoteOutput[]>('GET', s.ideaVotes, { token: facilitator.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    expect((await t.request('GET', `${s.ideaVotes}/${id}`, { token: other.token })).body).toEqual(created.body);

    const updated = await t.request<VoteOutput>('PUT', `${s.ideaVotes}/${id}`, {
      token: participant.token,
      body: { value: -1 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created.body, value: -1 });

    expect((await t.request('DELETE', `${s.ideaVotes}/${id}`, { token: participant.token })).status).toBe(204);
    expectError(await t.request('GET', `${s.ideaVotes}/${id}`, { token: participant.token }), 404, 'not_found');
    expect(await voteRows(s.workshop.id)).toEqual([]);

    const log = await eventLog(t, s.workshop.id);
    expect(log.map((e) => e.action)).toEqual(['addVote', 'updateVote', 'removeVote']);
    expect(log.every((e) => e.userId === participant.id)).toBe(true);
    expect(log[0]!.change).toEqual({ vote: { ...created.body, card_id: s.idea.id } });
    expect(log[1]!.change).toEqual({ vote: { ...updated.body, card_id: s.idea.id }, changes: { value: [2, -1] } });
    expect(log[2]!.change).toEqual({ vote: { ...updated.body, card_id: s.idea.id } });
  });

  it('lets a user hold several votes on a card and lists them in casting order', async () => {
    const s = await scene();
    const a = await vote(s.ideaVotes, participant, 1);
    const b = await vote(s.ideaVotes, participant, 1);
    const c = await vote(s.ideaVotes, other, -2);
    const list = await t.request<VoteOutput[]>('GET', s.ideaVotes, { token: participant.token });
    expect(list.body.map((v: { id: string }) => v.id)).toEqual([a.body.id, b.body.id, c.body.id]);
  });

  it('treats a PUT without a value, or with the same value, as no change', async () => {
    const s = await scene();
    const created = await vote(s.ideaVotes, participant, 1);
    for (const body of [{}, { value: 1 }]) {
      const res = await t.request<VoteOutput>('PUT', `${s.ideaVotes}/${created.body.id}`, {
        token: participant.token,
        body,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
    }
    expect((await eventLog(t, s.workshop.id)).map((e) => e.action)).toEqual(['addVote']);
  });

  it('refuses bad values with 400 and details, changing nothing', async () => {
    const s = await scene();
    for (const value of [0, 1.5, '1', null, true]) {
      const res = await vote(s.ideaVotes, participant, value);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('value');
    }
    expectError(await t.request('POST', s.ideaVotes, { token: participant.token, body: {} }), 400, 'invalid_request');
    await expectRawBodyRefused(
      t,
      { path: s.ideaVotes, token: participant.token },
      { body: '{"value":', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    await expectRawBodyRefused(
      t,
      { path: s.ideaVotes, token: participant.token },
      { body: 'value=1', contentType: 'text/plain' },
    );
    const kept = await vote(s.ideaVotes, participant, 1);
    const put = await t.request<VoteOutput>('PUT', `${s.ideaVotes}/${kept.body.id}`, {
      token: participant.token,
      body: { value: 0 },
    });
    expectError(put, 400, 'invalid_request');
    expect(errorOf(put).details?.[0]?.path).toBe('value');
    expect((await voteRows(s.workshop.id)).map((r) => r.value)).toEqual([1]);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });

  it('answers 404 to strangers and for cards or votes outside the workshop', async () => {
    const s = await scene();
    const elsewhere = await scene();
    const mine = await vote(s.ideaVotes, participant, 1);
    expectError(await t.request('GET', s.ideaVotes, { token: stranger.token }), 404, 'not_found');
    expectError(await vote(s.ideaVotes, stranger, 1), 404, 'not_found');
    expectError(await t.request('GET', `${s.ideaVotes}/${mine.body.id}`, { token: stranger.token }), 404, 'not_found');
    expectError(
      await t.request('DELETE', `${s.ideaVotes}/${mine.body.id}`, { token: stranger.token }),
      404,
      'not_found',
    );
    // A card of another workshop, under this workshop's path.
    expectError(
      await vote(`/v1/workshops/${s.workshop.id}/cards/${elsewhere.idea.id}/votes`, participant, 1),
      404,
      'not_found',
    );
    expectError(await vote(`/v1/workshops/${s.workshop.id}/cards/nope/votes`, participant, 1), 404, 'not_found');
    // A vote of this workshop, reached through another card.
    expectError(
      await t.request('GET', `${s.clusterVotes}/${mine.body.id}`, { token: participant.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('PUT', `${s.ideaVotes}/nope`, { token: participant.token, body: { value: 1 } }),
      404,
      'not_found',
    );
    expect(await voteRows(s.workshop.id)).toHaveLength(1);
    expect(await voteRows(elsewhere.workshop.id)).toHaveLength(0);
  });

  it('follows the current step: votes on ideas and on clusters are allowed separately', async () => {
    const s = await scene();
    const early = await vote(s.ideaVotes, participant, 1);
    await seedCurrentStep(t, s.workshop.id, { allow_vote_on_ideas: false, allow_vote_on_clusters: true });
    expectError(await vote(s.ideaVotes, participant, 1), 403, 'forbidden');
    expectError(
      await t.request('PUT', `${s.ideaVotes}/${early.body.id}`, { token: participant.token, body: { value: 2 } }),
      403,
      'forbidden',
    );
    expectError(
      await t.request('DELETE', `${s.ideaVotes}/${early.body.id}`, { token: participant.token }),
      403,
      'forbidden',
    );
    expect((await vote(s.clusterVotes, participant, 1)).status).toBe(201);
    // Facilitators are not bound by the step.
    expect((await vote(s.ideaVotes, facilitator, 1)).status).toBe(201);

    await seedCurrentStep(t, s.workshop.id, { allow_vote_on_ideas: true, allow_vote_on_clusters: false });
    expectError(await vote(s.clusterVotes, participant, 1), 403, 'forbidden');
    expect((await vote(s.ideaVotes, participant, 1)).status).toBe(201);
    expect((await eventLog(t, s.workshop.id)).map((e) => e.action)).toEqual([
      'addVote',
      'addVote',
      'addVote',
      'addVote',
    ]);
  });

  it("lets participants change only their own votes, and facilitators anyone's", async () => {
    const s = await scene();
    const pats = await vote(s.ideaVotes, participant, 1);
    expectError(
      await t.request('PUT', `${s.ideaVotes}/${pats.body.id}`, { token: other.token, body: { value: 2 } }),
      403,
      'forbidden',
    );
    expectError(await t.request('DELETE', `${s.ideaVotes}/${pats.body.id}`, { token: other.token }), 403, 'forbidden');
    const changed = await t.request<VoteOutput>('PUT', `${s.ideaVotes}/${pats.body.id}`, {
      token: facilitator.token,
      body: { value: 3 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ value: 3, user_id: participant.id });
    expect((await t.request('DELETE', `${s.ideaVotes}/${pats.body.id}`, { token: facilitator.token })).status).toBe(
      204,
    );
    const log = await eventLog(t, s.workshop.id);
    expect(log.map((e) => [e.action, e.userId])).toEqual([
      ['addVote', participant.id],
      ['updateVote', facilitator.id],
      ['removeVote', facilitator.id],
    ]);
  });

  it('refuses writes to an archived workshop with 409 but still reads', async () => {
    const s = await scene();
    const kept = await vote(s.ideaVotes, participant, 1);
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, s.workshop.id)),
    );
    for (const user of [participant, facilitator]) {
      expectError(await vote(s.ideaVotes, user, 1), 409, 'workshop_archived');
      expectError(
        await t.request('PUT', `${s.ideaVotes}/${kept.body.id}`, { token: user.token, body: { value: 2 } }),
        409,
        'workshop_archived',
      );
      expectError(
        await t.request('DELETE', `${s.ideaVotes}/${kept.body.id}`, { token: user.token }),
        409,
        'workshop_archived',
      );
    }
    expect((await t.request('GET', s.ideaVotes, { token: participant.token })).body).toEqual([kept.body]);
    expect(await voteRows(s.workshop.id)).toHaveLength(1);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });

  it('shows participants only their own votes when the step hides votes', async () => {
    const s = await scene();
    const pats = await vote(s.ideaVotes, participant, 1);
    const ottos = await vote(s.ideaVotes, other, -1);
    await seedCurrentStep(t, s.workshop.id, { allow_display_votes: false });
    expect((await t.request('GET', s.ideaVotes, { token: participant.token })).body).toEqual([pats.body]);
    expect((await t.request('GET', s.ideaVotes, { token: other.token })).body).toEqual([ottos.body]);
    expectError(
      await t.request('GET', `${s.ideaVotes}/${ottos.body.id}`, { token: participant.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `${s.ideaVotes}/${ottos.body.id}`, { token: participant.token }),
      404,
      'not_found',
    );
    expect((await t.request('GET', s.ideaVotes, { token: facilitator.token })).body).toEqual([pats.body, ottos.body]);
  });
});

describe('votes on a workshop an organization owns', () => {
  it("counts the organization's admins as facilitators, members or not, in votes cast together", async () => {
    const [admin, adminAndMember, orgFacilitator] = [
      await createUser(t, 'Ada'),
      await createUser(t, 'Abe'),
      await createUser(t, 'Ola'),
    ];
    const organizationId = await t.write(async (tx, { organizationMembers, organizations }) => {
      const [org] = await tx.insert(organizations).values({ name: 'Org' }).returning();
      await tx.insert(organizationMembers).values([
        { organizationId: org!.id, userId: admin.id, email: admin.email, role: 'admin' },
        { organizationId: org!.id, userId: adminAndMember.id, email: adminAndMember.email, role: 'admin' },
        { organizationId: org!.id, userId: orgFacilitator.id, email: orgFacilitator.email, role: 'facilitator' },
      ]);
      return org!.id;
    });
    const workshop = await seedWorkshop(t, facilitator, { ownerType: 'organization', ownerId: organizationId });
    await seedMember(t, workshop.id, participant);
    await seedMember(t, workshop.id, adminAndMember);
    const card = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
    // Participants may not vote on clusters in this step; facilitators may.
    await seedCurrentStep(t, workshop.id, { allow_vote_on_clusters: false });
    const path = `/v1/workshops/${workshop.id}/cards/${card.id}/votes`;
    const [byAdmin, byAdminAndMember, byParticipant, byOrgFacilitator] = await Promise.all([
      vote(path, admin, 1),
      vote(path, adminAndMember, 1),
      vote(path, participant, 1),
      vote(path, orgFacilitator, 1),
    ]);
    expect(byAdmin.status).toBe(201);
    expect(byAdminAndMember.status).toBe(201);
    expectError(byParticipant, 403, 'forbidden');
    // An organization's facilitator is no member of its workshops: they are not there.
    expectError(byOrgFacilitator, 404, 'not_found');
    expect((await voteRows(workshop.id)).map((row) => row.userId).sort()).toEqual([admin.id, adminAndMember.id].sort());
  });
});

describe('vote limits', () => {
  it('caps positive and negative points per card', async () => {
    const s = await scene({ voteMaxPositive: 3, voteMaxNegative: 2 });
    expect((await vote(s.ideaVotes, participant, 2)).status).toBe(201);
    expectError(await vote(s.ideaVotes, participant, 2), 409, 'vote_limit_reached');
    expect((await vote(s.ideaVotes, participant, 1)).status).toBe(201);
    expectError(await vote(s.ideaVotes, participant, 1), 409, 'vote_limit_reached');
    // Negative points have their own budget, and other cards and users theirs.
    expect((await vote(s.ideaVotes, participant, -2)).status).toBe(201);
    expectError(await vote(s.ideaVotes, participant, -1), 409, 'vote_limit_reached');
    expect((await vote(s.clusterVotes, participant, 3)).status).toBe(201);
    expect((await vote(s.ideaVotes, other, 3)).status).toBe(201);
    expectError(await vote(s.ideaVotes, other, 4), 409, 'vote_limit_reached');
    expect(await voteRows(s.workshop.id)).toHaveLength(5);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(5);
  });

  it('caps points across the workshop unless the limit is -1', async () => {
    const s = await scene({ votePositive: 4, voteNegative: -1, voteMaxPositive: 3, voteMaxNegative: 3 });
    expect((await vote(s.ideaVotes, participant, 3)).status).toBe(201);
    expectError(await vote(s.clusterVotes, participant, 2), 409, 'vote_limit_reached');
    expect((await vote(s.clusterVotes, participant, 1)).status).toBe(201);
    expectError(await vote(s.clusterVotes, participant, 1), 409, 'vote_limit_reached');
    // Unlimited negative points across the workshop, still 3 per card.
    expect((await vote(s.ideaVotes, participant, -3)).status).toBe(201);
    expect((await vote(s.clusterVotes, participant, -3)).status).toBe(201);

    const tight = await scene({ votePositive: -1, voteNegative: 1 });
    expect((await vote(tight.ideaVotes, participant, -1)).status).toBe(201);
    expectError(await vote(tight.clusterVotes, participant, -1), 409, 'vote_limit_reached');
    expect((await vote(tight.clusterVotes, participant, 3)).status).toBe(201);
  });

  it("checks a changed vote as if its old value were given back, against its owner's budget", async () => {
    const s = await scene({ votePositive: 4, voteMaxPositive: 3 });
    const two = await vote(s.ideaVotes, participant, 2);
    await vote(s.ideaVotes, participant, 1);
    await vote(s.clusterVotes, participant, 1);
    expectError(
      await t.request('PUT', `${s.ideaVotes}/${two.body.id}`, { token: participant.token, body: { value: 3 } }),
      409,
      'vote_limit_reached',
    );
    // Without its old 2 the card holds 1: a new 1 fits there (2 ≤ 3) and across the workshop (3 ≤ 4).
    expect(
      (await t.request('PUT', `${s.ideaVotes}/${two.body.id}`, { token: participant.token, body: { value: 1 } }))
        .status,
    ).toBe(200);
    // The facilitator has spent nothing, yet the participant's budget decides.
    expectError(
      await t.request('PUT', `${s.ideaVotes}/${two.body.id}`, { token: facilitator.token, body: { value: 3 } }),
      409,
      'vote_limit_reached',
    );
    expect(
      (await t.request('PUT', `${s.ideaVotes}/${two.body.id}`, { token: facilitator.token, body: { value: 2 } }))
        .status,
    ).toBe(200);
    expect((await voteRows(s.workshop.id)).map((r) => r.value).sort()).toEqual([1, 1, 2]);
    expect((await eventLog(t, s.workshop.id)).map((e) => e.action)).toEqual([
      'addVote',
      'addVote',
      'addVote',
      'updateVote',
      'updateVote',
    ]);
  });

  it('lets exactly 10 of 100 concurrent votes through a workshop limit of 10', async () => {
    const s = await scene({ votePositive: 10, voteMaxPositive: 100 });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => vote(i % 2 ? s.ideaVotes : s.clusterVotes, participant, 1)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(90);
    expect(results.filter((r) => r.status === 409).every((r) => errorOf(r).code === 'vote_limit_reached')).toBe(true);
    expect(await voteRows(s.workshop.id)).toHaveLength(10);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(10);
  });
});
