import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { WorkshopOutput } from '../src/domain/workshops';
import {
  createUser,
  errorOf,
  eventLog,
  expectError,
  seedMember,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';
import type { TestServer } from './helpers/server';

function membersOf(t: TestServer, workshopId: string) {
  return t.db.select().from(t.tables.workshopMembers).where(eq(t.tables.workshopMembers.workshopId, workshopId));
}

const join = (t: TestServer, user: TestUser, access_code: unknown) =>
  t.request<WorkshopOutput>('POST', '/v1/workshops/join', { token: user.token, body: { access_code } });

describe('POST /v1/workshops/join', () => {
  const t = useServer();
  const [ada, bob, cat] = useUsers(t, 'Ada', 'Bob', 'Cat');

  it('makes the caller a participant, with or without dashes and spaces', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Open', accessCode: '123456789' });
    const res = await join(t, bob, '123-456-789');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: w.id, title: 'Open', state: 'running' });
    const bobMember = (await membersOf(t, w.id)).find((m) => m.userId === bob.id)!;
    expect(bobMember.role).toBe('participant');
    expect((await eventLog(t, w.id)).map((e) => [e.action, e.change])).toEqual([
      ['addMember', { member: { id: bobMember.id, user_id: bob.id, role: 'participant', name: 'Bob', guest: false } }],
    ]);
    expect((await join(t, cat, ' 123 456 789 ')).status).toBe(200);
    expect((await t.request('GET', `/v1/workshops/${w.id}`, { token: cat.token })).status).toBe(200);
  });

  it('takes a code typed in Arabic-Indic or Persian digits, as an Arabic phone keyboard types it, from any client', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Majlis', accessCode: '246813579' });
    expect((await join(t, bob, '٢٤٦-٨١٣-٥٧٩')).status).toBe(200);
    expect((await join(t, cat, '۲۴۶ ۸۱۳ ۵۷۹')).status).toBe(200);
    expect((await t.request('GET', `/v1/workshops/${w.id}`, { token: cat.token })).status).toBe(200);
  });

  it('is idempotent for members', async () => {
    const w = await seedWorkshop(t, ada, { accessCode: '222333444' });
    await seedMember(t, w.id, bob, 'facilitator');
    expect((await join(t, ada, '222333444')).status).toBe(200);
    const again = await join(t, bob, '222-333-444');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(w.id);
    expect((await membersOf(t, w.id)).map((m) => m.role).sort()).toEqual(['facilitator', 'facilitator']);
    expect(await eventLog(t, w.id)).toEqual([]);
  });

  it('refuses malformed codes', async () => {
    for (const code of ['12345678', '1234567890', 'abc-def-ghi', 123456789, '']) {
      const res = await join(t, bob, code);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('access_code');
    }
    expectError(await t.request('POST', '/v1/workshops/join', { token: bob.token, body: {} }), 400, 'invalid_request');
  });

  it('answers 404 for unknown and archived codes', async () => {
    const archived = await seedWorkshop(t, ada, { state: 'archived', accessCode: '555666777' });
    expectError(await join(t, bob, '555-666-777'), 404, 'not_found');
    expectError(await join(t, bob, '000-000-001'), 404, 'not_found');
    expect(await membersOf(t, archived.id)).toHaveLength(1);
    expect(await eventLog(t, archived.id)).toEqual([]);
  });
});

describe('attendee limit', () => {
  const t = useServer({
    plans: {
      free: { name: 'free', workshops_max_attendees: 2 },
      team: { name: 'team', workshops_max_attendees: 1000 },
    },
  });

  it('answers 409 attendee_limit_reached past the owner plan', async () => {
    const owner = await createUser(t, 'Owner');
    const w = await seedWorkshop(t, owner, { accessCode: '111222333' });
    const [p1, p2, p3] = [await createUser(t, 'P1'), await createUser(t, 'P2'), await createUser(t, 'P3')];
    expect((await join(t, p1, '111222333')).status).toBe(200);
    expect((await join(t, p2, '111222333')).status).toBe(200);
    const full = await join(t, p3, '111222333');
    expectError(full, 409, 'attendee_limit_reached');
    expect(await membersOf(t, w.id)).toHaveLength(3);
    expect(await eventLog(t, w.id)).toHaveLength(2);
    // Members already in may still come back.
    expect((await join(t, p1, '111222333')).status).toBe(200);
  });
});

describe('join rate limit', () => {
  const t = useServer();

  it('answers 429 with Retry-After after 10 wrong codes in a minute; right codes do not count', async () => {
    const [owner, guesser, neighbour] = [
      await createUser(t, 'Owner'),
      await createUser(t, 'Guesser'),
      await createUser(t, 'Neighbour'),
    ];
    const w = await seedWorkshop(t, owner, { accessCode: '314159265' });
    for (let i = 0; i < 9; i++) expectError(await join(t, guesser, `900-000-00${i}`), 404, 'not_found');
    // Joining with a right code and a malformed one cost nothing.
    expect((await join(t, guesser, '314-159-265')).status).toBe(200);
    expectError(await join(t, guesser, 'nope'), 400, 'invalid_request');
    expectError(await join(t, guesser, '900-000-009'), 404, 'not_found');

    const limited = await join(t, guesser, '900-000-010');
    expectError(limited, 429, 'rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Even the right code is refused while limited. Another user at the same address is not: the
    // address's budget is a room's
    // (docs/configuration.md#a-room-behind-one-address-and-guessing-codes), six times a user's.
    expectError(await join(t, guesser, '314-159-265'), 429, 'rate_limited');
    expect((await join(t, neighbour, '314-159-265')).status).toBe(200);
    expect((await membersOf(t, w.id)).map((m) => m.userId).sort()).toEqual([owner.id, guesser.id, neighbour.id].sort());
  });
});

describe('the join link', () => {
  const t = useServer();
  const [ada, bob, cat] = useUsers(t, 'Ada', 'Bob', 'Cat');
  const joinWithKey = (user: TestUser, join_key: unknown) =>
    t.request<WorkshopOutput>('POST', '/v1/workshops/join', { token: user.token, body: { join_key } });
  const linkOf = async (workshopId: string) =>
    (
      await t.request<{ access_code: string; join_url: string }>('GET', `/v1/workshops/${workshopId}/access_code`, {
        token: ada.token,
      })
    ).body;
  const keyOf = async (workshopId: string) => new URL((await linkOf(workshopId)).join_url).hash.replace(/^#key=/, '');

  it('is answered with the code: the participant page with an unguessable key, the same on every read', async () => {
    const w = await seedWorkshop(t, ada, { accessCode: '246813579' });
    const link = await linkOf(w.id);
    expect(link.access_code).toBe('246-813-579');
    expect(link.join_url).toMatch(new RegExp(`^${t.deps.config.publicUrl}/join#key=[\\w.-]+$`));
    const key = await keyOf(w.id);
    expect(await keyOf(w.id)).toBe(key);
    // At least 128 bits that only the service can make: more than the workshop's id it names.
    expect(key.replace(w.id, '').replace(/[^\w-]/g, '').length * 6).toBeGreaterThanOrEqual(128);
  });

  it('lets an account in as a participant, and again as a member (idempotent)', async () => {
    const w = await seedWorkshop(t, ada, { title: 'Linked' });
    const key = await keyOf(w.id);
    const res = await joinWithKey(bob, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: w.id, title: 'Linked' });
    expect((await joinWithKey(bob, key)).status).toBe(200);
    expect((await membersOf(t, w.id)).find((m) => m.userId === bob.id)?.role).toBe('participant');
  });

  it('takes exactly one of access_code and join_key', async () => {
    const w = await seedWorkshop(t, ada, { accessCode: '864213579' });
    const key = await keyOf(w.id);
    const body = (value: unknown) => t.request('POST', '/v1/workshops/join', { token: cat.token, body: value });
    expectError(await body({ access_code: '864-213-579', join_key: key }), 400, 'invalid_request');
    expectError(await body({}), 400, 'invalid_request');
    expectError(await body({ join_key: 12 }), 400, 'invalid_request');
    expectError(await body({ join_key: '' }), 400, 'invalid_request');
    expect(await membersOf(t, w.id)).toHaveLength(1);
  });

  it('works only while the workshop runs, and only with its current code: a new code kills it', async () => {
    const w = await seedWorkshop(t, ada);
    const key = await keyOf(w.id);
    const state = (value: 'archived' | 'running') =>
      t.request<WorkshopOutput>('PUT', `/v1/workshops/${w.id}`, { token: ada.token, body: { state: value } });
    expect((await state('archived')).status).toBe(200);
    expectError(await joinWithKey(bob, key), 404, 'not_found');
    // Running again under its code, the link works again.
    expect((await state('running')).status).toBe(200);
    expect((await joinWithKey(bob, key)).status).toBe(200);

    // Archived while another workshop takes its code, it runs again under a new one: the old link is dead.
    expect((await state('archived')).status).toBe(200);
    const { accessCode: oldCode } = (
      await t.db.select().from(t.tables.workshops).where(eq(t.tables.workshops.id, w.id))
    )[0]!;
    await seedWorkshop(t, ada, { accessCode: oldCode });
    expect((await state('running')).status).toBe(200);
    const fresh = await keyOf(w.id);
    expect(fresh).not.toBe(key);
    expectError(await joinWithKey(cat, key), 404, 'not_found');
    expect((await joinWithKey(cat, fresh)).status).toBe(200);
  });

  it('refuses a key it did not make with the 404 of a wrong code', async () => {
    const w = await seedWorkshop(t, ada);
    const key = await keyOf(w.id);
    const other = await seedWorkshop(t, ada);
    const forged = [
      key.slice(0, -2) + (key.endsWith('AA') ? 'BB' : 'AA'),
      key.replace(w.id, other.id),
      w.id,
      `${w.id}.`,
      'x'.repeat(80),
      (await keyOf(other.id)).replace(other.id, w.id),
    ];
    for (const wrong of forged) expectError(await joinWithKey(cat, wrong), 404, 'not_found');
    expect((await membersOf(t, w.id)).map((m) => m.userId)).toEqual([ada.id]);
  });
});

describe('the join link and the wrong-code limits', () => {
  const t = useServer();

  it('a wrong key counts as a wrong code; a right key is neither counted nor refused', async () => {
    const [owner, guesser] = [await createUser(t, 'Owner'), await createUser(t, 'Guesser')];
    const w = await seedWorkshop(t, owner, { accessCode: '271828182' });
    const key = new URL(
      (await t.request<{ join_url: string }>('GET', `/v1/workshops/${w.id}/access_code`, { token: owner.token })).body
        .join_url,
    ).hash.slice('#key='.length);
    const byKey = (join_key: string) =>
      t.request<WorkshopOutput>('POST', '/v1/workshops/join', { token: guesser.token, body: { join_key } });
    // Five wrong keys and five wrong codes spend the user's ten; right keys between them cost nothing.
    for (let i = 0; i < 5; i++) {
      expectError(await byKey(`${w.id}.${'A'.repeat(22 + i)}`), 404, 'not_found');
      expect((await byKey(key)).status).toBe(200);
      expectError(await join(t, guesser, `900-000-00${i}`), 404, 'not_found');
    }
    expectError(await join(t, guesser, '271-828-182'), 429, 'rate_limited');
    // Limited for typed codes, the user still gets in with the link.
    expect((await byKey(key)).status).toBe(200);
  });
});
