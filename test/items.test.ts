import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ItemOutput } from '../src/domain/items';
import {
  eventLog,
  expectError,
  seedCurrentStep,
  seedSection,
  seedWorkshop,
  type TestUser,
  seedCardScene,
} from './helpers/factories';
import { expectFieldsRefused, expectRawBodyRefused } from './helpers/refusals';
import { useCast } from './helpers/cast';

const cast = useCast();
const { facilitator, participant, other, stranger } = cast;
const t = cast.t;

async function scene() {
  const { workshop, card, path } = await seedCardScene(cast, 'items');
  const pros = await seedSection(t, workshop.id, 'Pros');
  const cons = await seedSection(t, workshop.id, 'Cons');
  return { workshop, card, pros, cons, path };
}

const add = (path: string, user: TestUser, body: unknown) =>
  t.request<ItemOutput>('POST', path, { token: user.token, body });
const itemRows = (workshopId: string) =>
  t.db.select().from(t.tables.items).where(eq(t.tables.items.workshopId, workshopId));

describe('items', () => {
  it('adds, reads, filters, edits and removes items, logging each change', async () => {
    const s = await scene();
    const pro = await add(s.path, participant, { content: 'Cheap to build', section_id: s.pros.id });
    expect(pro.status).toBe(201);
    expect(pro.body).toEqual({
      id: expect.any(String),
      content: 'Cheap to build',
      section_id: s.pros.id,
      user_id: participant.id,
      author_visibility: 'shown',
    });
    const con = await add(s.path, other, { content: 'Slow', section_id: s.cons.id });

    expect((await t.request('GET', s.path, { token: participant.token })).body).toEqual([pro.body, con.body]);
    expect((await t.request('GET', `${s.path}?section_id=${s.cons.id}`, { token: participant.token })).body).toEqual([
      con.body,
    ]);
    expect((await t.request('GET', `${s.path}/${pro.body.id}`, { token: other.token })).body).toEqual(pro.body);

    const edited = await t.request<ItemOutput>('PUT', `${s.path}/${pro.body.id}`, {
      token: participant.token,
      body: { content: 'Very cheap' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ ...pro.body, content: 'Very cheap' });
    expect((await t.request('DELETE', `${s.path}/${pro.body.id}`, { token: participant.token })).status).toBe(204);
    expectError(await t.request('GET', `${s.path}/${pro.body.id}`, { token: participant.token }), 404, 'not_found');

    const log = await eventLog(t, s.workshop.id);
    expect(log.map((e) => e.action)).toEqual(['addItem', 'addItem', 'updateItem', 'removeItem']);
    expect(log[0]!.change).toEqual({ item: { ...pro.body, card_id: s.card.id } });
    expect(log[2]!.change).toEqual({
      item: { ...edited.body, card_id: s.card.id },
      changes: { content: ['Cheap to build', 'Very cheap'] },
    });
    expect((await itemRows(s.workshop.id)).map((r) => r.id)).toEqual([con.body.id]);
  });

  it('refuses empty content and sections of other workshops with 400, changing nothing', async () => {
    const s = await scene();
    const foreign = await seedSection(t, (await seedWorkshop(t, facilitator)).id);
    const cases: Array<[unknown, string]> = [
      [{ content: '', section_id: s.pros.id }, 'content'],
      [{ content: '   ', section_id: s.pros.id }, 'content'],
      [{ content: 42, section_id: s.pros.id }, 'content'],
      [{ section_id: s.pros.id }, 'content'],
      [{ content: 'x' }, 'section_id'],
      [{ content: 'x', section_id: foreign.id }, 'section_id'],
      [{ content: 'x', section_id: 'unknown' }, 'section_id'],
    ];
    await expectFieldsRefused((body) => add(s.path, participant, body), cases);
    await expectRawBodyRefused(
      t,
      { path: s.path, token: participant.token },
      { body: '{', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    const kept = await add(s.path, participant, { content: 'kept', section_id: s.pros.id });
    expectError(
      await t.request('PUT', `${s.path}/${kept.body.id}`, { token: participant.token, body: { content: '' } }),
      400,
      'invalid_request',
    );
    expect((await itemRows(s.workshop.id)).map((r) => r.content)).toEqual(['kept']);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });

  it('answers 404 to strangers and for cards or items outside the workshop', async () => {
    const s = await scene();
    const elsewhere = await scene();
    const mine = await add(s.path, participant, { content: 'x', section_id: s.pros.id });
    expectError(await t.request('GET', s.path, { token: stranger.token }), 404, 'not_found');
    expectError(await add(s.path, stranger, { content: 'x', section_id: s.pros.id }), 404, 'not_found');
    expectError(
      await add(`/v1/workshops/${s.workshop.id}/cards/${elsewhere.card.id}/items`, participant, {
        content: 'x',
        section_id: s.pros.id,
      }),
      404,
      'not_found',
    );
    expectError(
      await t.request('GET', `${elsewhere.path}/${mine.body.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expectError(await t.request('DELETE', `${s.path}/unknown`, { token: participant.token }), 404, 'not_found');
    expect(await itemRows(elsewhere.workshop.id)).toHaveLength(0);
  });

  it('follows the current step, and lets participants change only their own items', async () => {
    const s = await scene();
    const pats = await add(s.path, participant, { content: 'x', section_id: s.pros.id });
    expectError(
      await t.request('PUT', `${s.path}/${pats.body.id}`, { token: other.token, body: { content: 'y' } }),
      403,
      'forbidden',
    );
    expectError(await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: other.token }), 403, 'forbidden');
    await seedCurrentStep(t, s.workshop.id, { allow_items: false });
    expectError(await add(s.path, other, { content: 'x', section_id: s.pros.id }), 403, 'forbidden');
    expectError(
      await t.request('PUT', `${s.path}/${pats.body.id}`, { token: participant.token, body: { content: 'y' } }),
      403,
      'forbidden',
    );
    expect(
      (await t.request('PUT', `${s.path}/${pats.body.id}`, { token: facilitator.token, body: { content: 'z' } }))
        .status,
    ).toBe(200);
    expect((await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: facilitator.token })).status).toBe(204);
    expect((await eventLog(t, s.workshop.id)).map((e) => e.action)).toEqual(['addItem', 'updateItem', 'removeItem']);
  });

  it('refuses writes to an archived workshop with 409', async () => {
    const s = await scene();
    const kept = await add(s.path, participant, { content: 'x', section_id: s.pros.id });
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, s.workshop.id)),
    );
    for (const user of [participant, facilitator]) {
      expectError(await add(s.path, user, { content: 'y', section_id: s.pros.id }), 409, 'workshop_archived');
      expectError(
        await t.request('PUT', `${s.path}/${kept.body.id}`, { token: user.token, body: { content: 'y' } }),
        409,
        'workshop_archived',
      );
      expectError(
        await t.request('DELETE', `${s.path}/${kept.body.id}`, { token: user.token }),
        409,
        'workshop_archived',
      );
    }
    expect((await t.request('GET', s.path, { token: participant.token })).body).toEqual([kept.body]);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });
});
