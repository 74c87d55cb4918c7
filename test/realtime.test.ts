import { describe, expect, it } from 'vitest';
import type { CardOutput } from '../src/domain/cards';
import type { CommentOutput } from '../src/domain/comments';
import type { RatingOutput } from '../src/domain/ratings';
import type { SectionOutput } from '../src/domain/sections';
import type { StepOutput } from '../src/domain/steps';
import type { VoteOutput } from '../src/domain/votes';
import {
  createUser,
  eventLog,
  seedCard,
  seedCriterion,
  seedCurrentStep,
  recordEvent,
  seedMember,
  seedWorkshop,
  type TestUser,
  seedWorkshopWith,
} from './helpers/factories';
import { useServer, useSockets, useUsers } from './helpers/cast';
import { quietFor, until } from './helpers/wait';
import { connectSocket, type LiveClient } from './helpers/sockets';

const t = useServer();
const [facilitator, participant, other, stranger] = useUsers(t, 'Fay', 'Pat', 'Otto', 'Stan');
const sockets = useSockets(t);

/** A seeded workshop with the facilitator and two participants as members. */
const scene = () => seedWorkshopWith(t, facilitator, [participant, other]);

const joined = (user: TestUser, workshopId: string) => sockets.joined(user, workshopId);

const api = <T = unknown>(method: string, path: string, user: TestUser, body?: unknown) =>
  t.request<T>(method, path, { token: user.token, body });

describe('connecting', () => {
  it('refuses a handshake without a token, with an unknown token and with a revoked one', async () => {
    await expect(connectSocket(t.url, undefined)).rejects.toThrow('unauthenticated');
    await expect(connectSocket(t.url, 'not-a-token')).rejects.toThrow('unauthenticated');
    const leaving = await createUser(t, 'Leaving');
    expect((await api('POST', '/v1/auth/logout', leaving)).status).toBe(204);
    await expect(connectSocket(t.url, leaving.token)).rejects.toThrow('unauthenticated');
  });

  it('lets members join and answers with the latest seq', async () => {
    const w = await scene();
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Renamed' });
    const client = await connectSocket(t.url, participant.token);
    sockets.track(client);
    expect(await client.join(w.id)).toEqual({ ok: true, seq: 1 });
    // Joining again is harmless.
    expect(await client.join(w.id)).toEqual({ ok: true, seq: 1 });
  });

  it('works over HTTP long-polling too, on the REST port', async () => {
    const w = await scene();
    const client = await connectSocket(t.url, participant.token, { transports: ['polling'] });
    sockets.track(client);
    expect(await client.join(w.id)).toEqual({ ok: true, seq: 0 });
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Polled' });
    expect(await client.next('workshop:updated')).toMatchObject({ seq: 1, workshop: { title: 'Polled' } });
    expect((await api('GET', `/v1/workshops/${w.id}`, participant)).status).toBe(200);
  });

  it('refuses strangers and unknown workshops alike, and malformed requests with details', async () => {
    const w = await scene();
    const client = await connectSocket(t.url, stranger.token);
    sockets.track(client);
    const refused = await client.join(w.id);
    expect(refused).toEqual({ ok: false, error: { code: 'not_found', message: expect.any(String) } });
    expect(await client.join('no-such-workshop')).toEqual(refused);

    const malformed = await client.join(42 as never);
    expect(malformed).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const badSince = await client.socket.timeout(3_000).emitWithAck('join', { workshop_id: w.id, since_seq: -1 });
    expect(badSince).toMatchObject({ ok: false, error: { code: 'invalid_request', details: [{ path: 'since_seq' }] } });
    // A NUL character reaches no query (PostgreSQL would fail on it): refused alike on both stores.
    expect(await client.join(`${w.id}\u0000`)).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: 'workshop_id' }] },
    });

    // A refused stranger receives nothing of the workshop.
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Secret plans' });
    const watcher = await joined(facilitator, w.id);
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'More secret plans' });
    await watcher.next('workshop:updated', (p) => p.workshop.title === 'More secret plans');
    expect(client.received).toEqual([]);
  });

  it('leaves a workshop on request', async () => {
    const w = await scene();
    const client = await joined(participant, w.id);
    expect(await client.socket.timeout(3_000).emitWithAck('leave', { workshop_id: w.id })).toEqual({ ok: true });
    const watcher = await joined(facilitator, w.id);
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'After leaving' });
    await watcher.next('workshop:updated');
    expect(client.all('workshop:updated')).toEqual([]);
  });
});

describe('workshop and step events', () => {
  it('sends workshop:updated, and view:changed with the same seq when the view changes', async () => {
    const w = await scene();
    const client = await joined(participant, w.id);
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'New title' });
    const updated = await client.next('workshop:updated');
    expect(updated).toMatchObject({
      seq: 1,
      workshop_id: w.id,
      workshop: { id: w.id, title: 'New title' },
      changes: { title: ['Seeded workshop', 'New title'] },
    });
    expect(client.all('view:changed')).toEqual([]);

    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { force_sync: true, view: { sort: 'score' } });
    const view = await client.next('view:changed');
    expect(view).toEqual({
      seq: 2,
      workshop_id: w.id,
      view: expect.objectContaining({ sort: 'score' }),
      force_sync: true,
    });
    expect(client.all('workshop:updated').map((p) => p.seq)).toEqual([1, 2]);
  });

  it('sends step:changed and view:changed when the current step changes', async () => {
    const w = await scene();
    const step = (
      await api<StepOutput>('POST', `/v1/workshops/${w.id}/steps`, facilitator, {
        name: 'Vote',
        view: { sort: 'score' },
      })
    ).body;
    const client = await joined(other, w.id);
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, {
      current_step_id: step.id,
      change_step_notifications: false,
    });
    const changed = await client.next('step:changed');
    expect(changed).toEqual({
      seq: expect.any(Number),
      workshop_id: w.id,
      step: expect.objectContaining({ id: step.id, name: 'Vote' }),
    });
    const view = await client.next('view:changed', (p) => p.seq === changed.seq);
    expect(view.view.sort).toBe('score');

    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { current_step_id: null });
    expect(await client.next('step:changed', (p) => p.step === null)).toMatchObject({ seq: changed.seq + 1 });
  });

  it('sends export changes as export:updated to facilitators, and only the bare seq to participants', async () => {
    const w = await scene();
    const facilitatorClient = await joined(facilitator, w.id);
    const participantClient = await joined(participant, w.id);
    const exported = {
      id: 'e1',
      created_at: new Date().toISOString(),
      type: 'pdf' as const,
      state: 'success' as const,
      url: 'http://localhost/x',
      message: null,
    };
    await recordEvent(t, {
      workshopId: w.id,
      action: 'updateExport',
      userId: facilitator.id,
      change: { export: exported, changes: { state: ['pending', 'success'] } },
    });
    expect(await facilitatorClient.next('export:updated')).toEqual({ seq: 1, workshop_id: w.id, export: exported });
    expect(await participantClient.next('workshop:event')).toEqual({
      seq: 1,
      workshop_id: w.id,
      action: 'updateExport',
    });
  });

  it('sends other changes as workshop:event with the logged change', async () => {
    const w = await scene();
    const client = await joined(participant, w.id);
    const section = (
      await api<SectionOutput>('POST', `/v1/workshops/${w.id}/sections`, facilitator, { title: 'Risks' })
    ).body;
    expect(await client.next('workshop:event')).toEqual({
      seq: 1,
      workshop_id: w.id,
      action: 'addSection',
      change: { section },
    });
  });

  it('tells joined clients when the workshop is deleted, then sends nothing more', async () => {
    const w = await scene();
    const client = await joined(participant, w.id);
    expect((await api('DELETE', `/v1/workshops/${w.id}`, facilitator)).status).toBe(204);
    expect(await client.next('workshop:event')).toMatchObject({ seq: 0, workshop_id: w.id, action: 'removeWorkshop' });
    expect(await client.join(w.id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('card events', () => {
  it('sends card:created, card:updated and card:deleted shaped like the REST card', async () => {
    const w = await scene();
    const client = await joined(other, w.id);
    const cluster = (
      await api<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, participant, { type: 'cluster', title: 'Ideas' })
    ).body;
    expect(await client.next('card:created')).toEqual({ seq: 1, workshop_id: w.id, card: cluster });

    const idea = (
      await api<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, participant, {
        type: 'idea',
        parent: cluster.id,
        title: 'One',
      })
    ).body;
    const updated = (
      await api<CardOutput>('PUT', `/v1/workshops/${w.id}/cards/${idea.id}`, participant, { title: 'Uno' })
    ).body;
    expect(await client.next('card:updated')).toEqual({
      seq: 3,
      workshop_id: w.id,
      card: updated,
      changes: { title: ['One', 'Uno'] },
    });

    await api('DELETE', `/v1/workshops/${w.id}/cards/${cluster.id}`, facilitator);
    expect(await client.next('card:deleted')).toEqual({
      seq: 4,
      workshop_id: w.id,
      card_id: cluster.id,
      removed_ids: [cluster.id, idea.id],
      merged_into: null,
    });
  });

  it('sends a merge as card:created plus card:deleted for each merged card', async () => {
    const w = await scene();
    const a = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'A' });
    const b = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'B' });
    const client = await joined(participant, w.id);
    const merged = (
      await api<CardOutput>('POST', `/v1/workshops/${w.id}/cards/merge`, facilitator, {
        cards_id: [a.id, b.id],
        title: 'AB',
      })
    ).body;
    const created = await client.next('card:created');
    expect(created).toEqual({ seq: 1, workshop_id: w.id, card: merged });
    await client.next('card:deleted', (p) => p.card_id === b.id);
    expect(client.all('card:deleted')).toEqual([
      { seq: 1, workshop_id: w.id, card_id: a.id, removed_ids: [a.id], merged_into: merged.id },
      { seq: 1, workshop_id: w.id, card_id: b.id, removed_ids: [b.id], merged_into: merged.id },
    ]);
  });

  it('sends a CSV import as a reload hint', async () => {
    const w = await scene();
    const client = await joined(participant, w.id);
    const form = new FormData();
    form.append('file', new Blob(['type,title\ncluster,Imported\n'], { type: 'text/csv' }), 'cards.csv');
    expect(
      (await t.request('PUT', `/v1/workshops/${w.id}/cards`, { token: facilitator.token, rawBody: form })).status,
    ).toBe(200);
    expect(await client.next('workshop:event')).toEqual({
      seq: 1,
      workshop_id: w.id,
      action: 'importCards',
      change: { count: 1 },
      reload: true,
    });
  });

  it('sends comment:created with the comment and its card', async () => {
    const w = await scene();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const client = await joined(other, w.id);
    const comment = (
      await api<CommentOutput>('POST', `/v1/workshops/${w.id}/cards/${card.id}/comments`, participant, {
        content: 'Nice',
      })
    ).body;
    expect(await client.next('comment:created')).toEqual({
      seq: 1,
      workshop_id: w.id,
      comment: { ...comment, card_id: card.id },
    });
  });
});

describe('scores', () => {
  it('sends score:changed after each vote change and after removing all votes', async () => {
    const w = await scene();
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const votes = `/v1/workshops/${w.id}/cards/${card.id}/votes`;
    const client = await joined(other, w.id);

    const vote = (await api<VoteOutput>('POST', votes, participant, { value: 1 })).body;
    expect(await client.next('score:changed')).toEqual({ seq: 1, workshop_id: w.id, card_id: card.id, score: 1 });
    // The score is read as the change is sent: each change is awaited, so none is sent after the next committed.
    await api('POST', votes, facilitator, { value: 1 });
    await client.next('score:changed', (p) => p.seq === 2);
    await api('PUT', `${votes}/${vote.id}`, participant, { value: 3 });
    await client.next('score:changed', (p) => p.seq === 3);
    await api('DELETE', `${votes}/${vote.id}`, participant);
    await client.next('score:changed', (p) => p.seq === 4);
    expect(client.all('score:changed').map((p) => p.score)).toEqual([1, 2, 4, 1]);

    expect((await api('DELETE', `/v1/workshops/${w.id}/votes`, facilitator)).status).toBe(204);
    expect(await client.next('score:changed', (p) => p.seq === 5)).toEqual({
      seq: 5,
      workshop_id: w.id,
      card_id: null,
      score: 0,
    });
  });

  it("hides other people's votes from participants when the step does not display them", async () => {
    const w = await scene();
    await seedCurrentStep(t, w.id, { allow_display_votes: false });
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const votes = `/v1/workshops/${w.id}/cards/${card.id}/votes`;
    await api('POST', votes, other, { value: 2 });
    const [fay, pat, otto] = [
      await joined(facilitator, w.id),
      await joined(participant, w.id),
      await joined(other, w.id),
    ];

    await api('POST', votes, participant, { value: 1 });
    expect(await fay.next('score:changed')).toEqual({ seq: 2, workshop_id: w.id, card_id: card.id, score: 3 });
    expect(await pat.next('score:changed')).toEqual({ seq: 2, workshop_id: w.id, card_id: card.id, score: 1 });
    expect(await otto.next('workshop:event')).toEqual({ seq: 2, workshop_id: w.id, action: 'addVote' });
    expect(otto.all('score:changed')).toEqual([]);

    // Card payloads carry the score each reader may see.
    await api('PUT', `/v1/workshops/${w.id}/cards/${card.id}`, facilitator, { title: 'Renamed' });
    const scoreIn = async (client: LiveClient) => (await client.next('card:updated')).card.summary.score;
    expect(await scoreIn(fay)).toBe(3);
    expect(await scoreIn(pat)).toBe(1);
    expect(await scoreIn(otto)).toBe(2);
    const late = await joined(facilitator, w.id);
    expect(late.all('card:updated')).toEqual([]);
  });

  it("hides other people's ratings the same way, as bare workshop events", async () => {
    const w = await scene();
    await seedCurrentStep(t, w.id, { allow_display_ratings: false });
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const criterion = await seedCriterion(t, w.id);
    const [fay, pat, otto] = [
      await joined(facilitator, w.id),
      await joined(participant, w.id),
      await joined(other, w.id),
    ];
    const rating = (
      await api<RatingOutput>('POST', `/v1/workshops/${w.id}/cards/${card.id}/ratings`, participant, {
        value: 4,
        criterium_id: criterion.id,
      })
    ).body;
    const full = {
      seq: 1,
      workshop_id: w.id,
      action: 'addRating',
      change: { rating: expect.objectContaining({ id: rating.id, value: 4 }) },
    };
    expect(await fay.next('workshop:event')).toEqual(full);
    expect(await pat.next('workshop:event')).toEqual(full);
    expect(await otto.next('workshop:event')).toEqual({ seq: 1, workshop_id: w.id, action: 'addRating' });
  });

  it("moves a promoted member's open sockets to the facilitators' view", async () => {
    const w = await scene();
    await seedCurrentStep(t, w.id, { allow_display_votes: false });
    const card = await seedCard(t, w.id, facilitator, { type: 'cluster' });
    const otto = await joined(other, w.id);
    const roles = (await api('GET', `/v1/workshops/${w.id}/user_roles`, facilitator)).body as Array<{
      id: string;
      user_id: string;
    }>;
    const member = roles.find((r) => r.user_id === other.id)!;
    expect(
      (await api('PUT', `/v1/workshops/${w.id}/user_roles/${member.id}`, facilitator, { role: 'facilitator' })).status,
    ).toBe(200);
    await otto.next('workshop:event', (p) => p.action === 'updateMember');

    expect((await api('POST', `/v1/workshops/${w.id}/cards/${card.id}/votes`, participant, { value: 1 })).status).toBe(
      201,
    );
    expect(await otto.next('score:changed')).toEqual({ seq: 2, workshop_id: w.id, card_id: card.id, score: 1 });
  });
});

describe('one path, in order', () => {
  it('emits nothing for a failed write', async () => {
    const w = await scene();
    await seedCurrentStep(t, w.id, { allow_add_cluster: false });
    const client = await joined(other, w.id);
    const before = (await eventLog(t, w.id)).length;

    expect((await api('PUT', `/v1/workshops/${w.id}`, participant, { title: 'Mine now' })).status).toBe(403);
    expect(
      (await api<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, participant, { type: 'cluster', title: 'Nope' }))
        .status,
    ).toBe(403);
    expect(
      (await api<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, facilitator, { type: 'idea', title: 'No parent' }))
        .status,
    ).toBe(400);
    expect(await eventLog(t, w.id)).toHaveLength(before);

    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Marker' });
    await client.next('workshop:updated');
    const changes = client.received.filter((r) => r.event !== 'presence');
    expect(changes).toEqual([{ event: 'workshop:updated', payload: expect.objectContaining({ seq: before + 1 }) }]);
  });

  it('emits nothing for writes an archived workshop refuses, and resumes when it runs again', async () => {
    const w = await scene();
    const client = await joined(participant, w.id);
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { state: 'archived' });
    expect(
      (await api<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, facilitator, { type: 'cluster', title: 'Late' }))
        .status,
    ).toBe(409);
    expect((await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Still archived' })).status).toBe(409);
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { state: 'running' });
    await client.next('workshop:updated', (p) => p.workshop.state === 'running');
    expect(client.all('workshop:updated').map((p) => [p.seq, p.workshop.state])).toEqual([
      [1, 'archived'],
      [2, 'running'],
    ]);
    expect(client.received.filter((r) => r.event !== 'presence' && r.event !== 'workshop:updated')).toEqual([]);
  });

  it('numbers every change with a strictly increasing seq, matching the log', async () => {
    const w = await seedWorkshop(t, facilitator, { voteMaxPositive: 10 });
    await seedMember(t, w.id, participant);
    await seedMember(t, w.id, other);
    const client = await joined(participant, w.id);
    const cluster = (
      await api<CardOutput>('POST', `/v1/workshops/${w.id}/cards`, facilitator, { type: 'cluster', title: 'C' })
    ).body;
    for (let i = 0; i < 5; i++) {
      await api('POST', `/v1/workshops/${w.id}/cards`, participant, {
        type: 'idea',
        parent: cluster.id,
        title: `I${i}`,
      });
      await api('POST', `/v1/workshops/${w.id}/cards/${cluster.id}/votes`, other, { value: 1 });
      await api('POST', `/v1/workshops/${w.id}/cards/${cluster.id}/comments`, other, { content: `c${i}` });
    }
    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { title: 'Done', view: { sort: 'score' } });
    const log = (await eventLog(t, w.id)).map((e) => e.seq);
    await client.next('view:changed', (p) => p.seq === log[log.length - 1]);
    expect(client.seqs(w.id)).toEqual(log);
    expect(log).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
  });
});

describe('notifications', () => {
  it("reach only their user's sockets, joined or not", async () => {
    const w = await scene();
    const step = (await api<StepOutput>('POST', `/v1/workshops/${w.id}/steps`, facilitator, { name: 'Next' })).body;
    const fay = await joined(facilitator, w.id);
    const pat = await connectSocket(t.url, participant.token);
    const otto = await joined(other, w.id);
    const stan = await connectSocket(t.url, stranger.token);
    sockets.track(pat);
    sockets.track(stan);

    await api('PUT', `/v1/workshops/${w.id}`, facilitator, { current_step_id: step.id });
    const forPat = await pat.next('notification');
    expect(forPat).toEqual({
      id: expect.any(String),
      type: 'changeStep',
      data: expect.objectContaining({ step: expect.objectContaining({ id: step.id }) }),
      read: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const forOtto = await otto.next('notification');
    expect(forOtto.id).not.toBe(forPat.id);

    await api('POST', `/v1/workshops/${w.id}/messages`, facilitator, { content: 'Break!', include_me: true });
    expect(await fay.next('notification')).toMatchObject({
      type: 'message',
      data: expect.objectContaining({ content: 'Break!' }),
    });
    await pat.next('notification', (n) => n.type === 'message');
    expect(fay.all('notification')).toHaveLength(1);
    expect(stan.received).toEqual([]);
  });
});

describe('presence', () => {
  it('lists connected users once, across tabs, and updates on leave and disconnect', async () => {
    const w = await scene();
    const tab1 = await joined(participant, w.id);
    const tab2 = await joined(participant, w.id);
    const fay = await joined(facilitator, w.id);
    const me = (user: TestUser) => ({ id: user.id, name: user.name, avatar_url: null, guest: false });

    const both = await tab1.next('presence', (p) => p.count === 2);
    expect(both).toEqual({ workshop_id: w.id, users: [me(facilitator), me(participant)], count: 2 });

    tab2.close();
    await until(
      async () =>
        (await t.server.realtime.io.fetchSockets()).filter((s) => s.data.user.id === participant.id).length === 1,
      'the server saw the second tab go',
    );
    // The participant is still there in tab 1, so nobody gets a new presence list.
    await quietFor(200, 'no presence change while the user keeps a tab');
    expect(fay.all('presence').at(-1)).toEqual(both);

    await fay.socket.timeout(3_000).emitWithAck('leave', { workshop_id: w.id });
    expect(await tab1.next('presence', (p) => p.count === 1)).toEqual({
      workshop_id: w.id,
      users: [me(participant)],
      count: 1,
    });

    const otto = await joined(other, w.id);
    await tab1.next('presence', (p) => p.count === 2);
    tab1.clear();
    otto.close();
    expect(await tab1.next('presence')).toEqual({ workshop_id: w.id, users: [me(participant)], count: 1 });
  });
});
