import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { SectionOutput } from '../src/domain/sections';
import { eventLog, expectError, seedCard, seedMember, seedSection, seedWorkshop, errorOf } from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [ada, bob, eve] = useUsers(t, 'Ada', 'Bob', 'Eve');

const base = (workshopId: string) => `/v1/workshops/${workshopId}/sections`;
const positions = async (workshopId: string) => {
  const { sections } = t.tables;
  return (
    await t.db.select().from(sections).where(eq(sections.workshopId, workshopId)).orderBy(asc(sections.position))
  ).map((s) => [s.title, s.position]);
};

describe('sections', () => {
  it('creates sections at the end and lists them in order', async () => {
    const w = await seedWorkshop(t, ada);
    const first = await t.request<SectionOutput>('POST', base(w.id), { token: ada.token, body: { title: 'Pros' } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: first.body.id, title: 'Pros' });
    const second = await t.request<SectionOutput>('POST', base(w.id), { token: ada.token, body: { title: 'Cons' } });
    expect(await positions(w.id)).toEqual([
      ['Pros', 0],
      ['Cons', 1],
    ]);
    const list = await t.request('GET', base(w.id), { token: ada.token });
    expect(list.body).toEqual([first.body, second.body]);
    const one = await t.request('GET', `${base(w.id)}/${second.body.id}`, { token: ada.token });
    expect(one.body).toEqual(second.body);
    expect((await eventLog(t, w.id)).map((e) => [e.action, e.change])).toEqual([
      ['addSection', { section: first.body }],
      ['addSection', { section: second.body }],
    ]);
  });

  it('renames a section and logs the change', async () => {
    const w = await seedWorkshop(t, ada);
    const section = await seedSection(t, w.id, 'Old');
    const res = await t.request('PUT', `${base(w.id)}/${section.id}`, { token: ada.token, body: { title: 'New' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: section.id, title: 'New' });
    expect((await eventLog(t, w.id)).map((e) => [e.action, e.change])).toEqual([
      ['updateSection', { section: { id: section.id, title: 'New' }, changes: { title: ['Old', 'New'] } }],
    ]);
  });

  it('deletes a section with its items and re-packs positions', async () => {
    const w = await seedWorkshop(t, ada);
    const [a, b] = [await seedSection(t, w.id, 'A'), await seedSection(t, w.id, 'B'), await seedSection(t, w.id, 'C')];
    const card = await seedCard(t, w.id, ada);
    const { items } = t.tables;
    await t.write(async (tx, s) =>
      tx.insert(s.items).values([
        { workshopId: w.id, cardId: card.id, sectionId: a.id, userId: ada.id, content: 'kept' },
        { workshopId: w.id, cardId: card.id, sectionId: b.id, userId: ada.id, content: 'gone' },
      ]),
    );
    expect((await t.request('DELETE', `${base(w.id)}/${b.id}`, { token: ada.token })).status).toBe(204);
    expect(await positions(w.id)).toEqual([
      ['A', 0],
      ['C', 1],
    ]);
    expect((await t.db.select().from(items).where(eq(items.workshopId, w.id))).map((i) => i.content)).toEqual(['kept']);
    expect((await eventLog(t, w.id)).map((e) => [e.action, e.change])).toEqual([
      ['removeSection', { section: { id: b.id, title: 'B' } }],
    ]);
    expectError(await t.request('GET', `${base(w.id)}/${b.id}`, { token: ada.token }), 404, 'not_found');
  });

  it('refuses bad input and changes nothing', async () => {
    const w = await seedWorkshop(t, ada);
    const section = await seedSection(t, w.id, 'Kept');
    for (const body of [{}, { title: '' }, { title: 7 }, { title: 'x'.repeat(201) }]) {
      const res = await t.request('POST', base(w.id), { token: ada.token, body });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('title');
    }
    expectError(
      await t.request('PUT', `${base(w.id)}/${section.id}`, { token: ada.token, body: { title: '  ' } }),
      400,
      'invalid_request',
    );
    await expectRawBodyRefused(
      t,
      { path: base(w.id), token: ada.token },
      { body: '{', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    expect(await positions(w.id)).toEqual([['Kept', 0]]);
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('lets members read and only facilitators write; strangers see nothing', async () => {
    const w = await seedWorkshop(t, ada);
    await seedMember(t, w.id, bob);
    const section = await seedSection(t, w.id, 'Kept');
    const one = `${base(w.id)}/${section.id}`;
    expect((await t.request('GET', base(w.id), { token: bob.token })).body).toEqual([
      { id: section.id, title: 'Kept' },
    ]);
    expect((await t.request('GET', one, { token: bob.token })).status).toBe(200);
    expectError(await t.request('POST', base(w.id), { token: bob.token, body: { title: 'x' } }), 403, 'forbidden');
    expectError(await t.request('PUT', one, { token: bob.token, body: { title: 'x' } }), 403, 'forbidden');
    expectError(await t.request('DELETE', one, { token: bob.token }), 403, 'forbidden');
    expectError(await t.request('GET', base(w.id), { token: eve.token }), 404, 'not_found');
    expectError(await t.request('GET', one, { token: eve.token }), 404, 'not_found');
    expectError(await t.request('DELETE', one, { token: eve.token }), 404, 'not_found');
    const other = await seedWorkshop(t, ada);
    expectError(
      await t.request('PUT', `${base(other.id)}/${section.id}`, { token: ada.token, body: { title: 'x' } }),
      404,
      'not_found',
    );
    expect(await positions(w.id)).toEqual([['Kept', 0]]);
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('refuses writes to an archived workshop', async () => {
    const w = await seedWorkshop(t, ada, { state: 'archived' });
    const section = await seedSection(t, w.id, 'Kept');
    expectError(
      await t.request('POST', base(w.id), { token: ada.token, body: { title: 'x' } }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request('PUT', `${base(w.id)}/${section.id}`, { token: ada.token, body: { title: 'x' } }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request('DELETE', `${base(w.id)}/${section.id}`, { token: ada.token }),
      409,
      'workshop_archived',
    );
    expect(await positions(w.id)).toEqual([['Kept', 0]]);
    expect(await eventLog(t, w.id)).toEqual([]);
  });
});
