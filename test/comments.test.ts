import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { CommentOutput } from '../src/domain/comments';
import { eventLog, expectError, seedCurrentStep, type TestUser, seedCardScene, errorOf } from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useCast } from './helpers/cast';

const cast = useCast();
const { facilitator, participant, other, stranger } = cast;
const t = cast.t;

function scene() {
  return seedCardScene(cast, 'comments');
}

const comment = (path: string, user: TestUser, body: unknown) =>
  t.request<CommentOutput>('POST', path, { token: user.token, body });
const commentRows = (workshopId: string) =>
  t.db.select().from(t.tables.comments).where(eq(t.tables.comments.workshopId, workshopId));

describe('comments', () => {
  it('comments, lists oldest first, reads and deletes, logging each change', async () => {
    const s = await scene();
    const first = await comment(s.path, participant, { content: 'Love it' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      content: 'Love it',
      user_id: participant.id,
      author_visibility: 'shown',
    });
    expect(new Date(first.body.created_at).toISOString()).toBe(first.body.created_at);
    const replies = [];
    for (const text of ['Me too', 'Not sure', 'Why?'])
      replies.push((await comment(s.path, other, { content: text })).body);

    expect((await t.request('GET', s.path, { token: facilitator.token })).body).toEqual([first.body, ...replies]);
    expect((await t.request('GET', `${s.path}/${first.body.id}`, { token: other.token })).body).toEqual(first.body);
    expect((await t.request('DELETE', `${s.path}/${first.body.id}`, { token: participant.token })).status).toBe(204);
    expectError(await t.request('GET', `${s.path}/${first.body.id}`, { token: participant.token }), 404, 'not_found');

    const log = await eventLog(t, s.workshop.id);
    expect(log.map((e) => e.action)).toEqual(['addComment', 'addComment', 'addComment', 'addComment', 'removeComment']);
    expect(log[0]!.change).toEqual({ comment: { ...first.body, card_id: s.card.id } });
    expect(log[4]!.change).toEqual({ comment: { ...first.body, card_id: s.card.id } });
    expect(await commentRows(s.workshop.id)).toHaveLength(3);
  });

  it('refuses empty or missing content with 400, changing nothing', async () => {
    const s = await scene();
    for (const body of [
      {},
      { content: '' },
      { content: ' \n ' },
      { content: ['x'] },
      { content: 'x'.repeat(10_001) },
    ]) {
      const res = await comment(s.path, participant, body);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('content');
    }
    await expectRawBodyRefused(
      t,
      { path: s.path, token: participant.token },
      { body: 'content=x', contentType: 'application/x-www-form-urlencoded' },
    );
    expect(await commentRows(s.workshop.id)).toHaveLength(0);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(0);
  });

  it('answers 404 to strangers and for cards or comments outside the workshop', async () => {
    const s = await scene();
    const elsewhere = await scene();
    const mine = await comment(s.path, participant, { content: 'x' });
    expectError(await t.request('GET', s.path, { token: stranger.token }), 404, 'not_found');
    expectError(await comment(s.path, stranger, { content: 'x' }), 404, 'not_found');
    expectError(await t.request('GET', `${s.path}/${mine.body.id}`, { token: stranger.token }), 404, 'not_found');
    expectError(
      await comment(`/v1/workshops/${s.workshop.id}/cards/${elsewhere.card.id}/comments`, participant, {
        content: 'x',
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `${elsewhere.path}/${mine.body.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expect(await commentRows(elsewhere.workshop.id)).toHaveLength(0);
    expect(await commentRows(s.workshop.id)).toHaveLength(1);
  });

  it('follows the current step, and lets participants delete only their own comments', async () => {
    const s = await scene();
    const pats = await comment(s.path, participant, { content: 'x' });
    expectError(await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: other.token }), 403, 'forbidden');
    await seedCurrentStep(t, s.workshop.id, { allow_comment: false });
    expectError(await comment(s.path, other, { content: 'x' }), 403, 'forbidden');
    expectError(await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: participant.token }), 403, 'forbidden');
    expect((await comment(s.path, facilitator, { content: 'Facilitators may' })).status).toBe(201);
    expect((await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: facilitator.token })).status).toBe(204);
    expect((await eventLog(t, s.workshop.id)).map((e) => [e.action, e.userId])).toEqual([
      ['addComment', participant.id],
      ['addComment', facilitator.id],
      ['removeComment', facilitator.id],
    ]);
  });

  it('refuses writes to an archived workshop with 409', async () => {
    const s = await scene();
    const kept = await comment(s.path, participant, { content: 'x' });
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, s.workshop.id)),
    );
    for (const user of [participant, facilitator]) {
      expectError(await comment(s.path, user, { content: 'y' }), 409, 'workshop_archived');
      expectError(
        await t.request('DELETE', `${s.path}/${kept.body.id}`, { token: user.token }),
        409,
        'workshop_archived',
      );
    }
    expect((await t.request('GET', s.path, { token: other.token })).body).toEqual([kept.body]);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });
});
