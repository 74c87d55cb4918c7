import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Config } from '../src/config';
import { MAX_REPLAY } from '../src/realtime/events';
import { useServer, useSockets } from './helpers/cast';
import { createUser, seedEvent, seedWorkshop } from './helpers/factories';

/*
 * Rate limits (docs/configuration.md#rate-limits-and-caps): `0` turns a limit off (for load tests
 * on a private network). Each test goes past the limit's default
 * (docs/configuration.md#rate-limits-and-caps) and is refused nothing.
 */

const OFF = {
  joinsPerSocketPer10Seconds: 0,
  joinsPerUserPerMinute: 0,
  replayedEventsPerUserPerMinute: 0,
  importsPerMinute: 0,
  joinAttemptsPerMinute: 0,
  authAttemptsPerMinute: 0,
  confirmationMailsPer10Minutes: 0,
  invitationMailsPerDay: 0,
  pendingExportsPerWorkshop: 0,
  pendingExportsPerUser: 0,
} satisfies Partial<Config>;

describe('limits set to 0', () => {
  const t = useServer(OFF);
  const sockets = useSockets(t);

  it('turns the address budgets off with the ones they follow', () => {
    expect(t.deps.config).toMatchObject({
      joinAttemptsPerAddressPerMinute: 0,
      loginFailuresPerAddressPerMinute: 0,
      signupsPerAddressPerMinute: 0,
    });
  });

  it('lets a socket and a user join without counting (past 10 a socket, 60 a user)', async () => {
    const user = await createUser(t, 'Joiner');
    const workshop = await seedWorkshop(t, user);
    for (let n = 0; n < 5; n++) {
      const client = await sockets.connected(user);
      const acks = await Promise.all(Array.from({ length: 14 }, () => client.join(workshop.id)));
      expect(acks.every((ack) => ack.ok)).toBe(true);
    }
  });

  it('replays every resume (past five full gaps a minute)', async () => {
    const user = await createUser(t, 'Resumer');
    const workshop = await seedWorkshop(t, user);
    for (let n = 1; n <= MAX_REPLAY; n++)
      await seedEvent(t, workshop.id, 'addStep', user.id, { step: { id: `s${n}` } });
    for (let n = 0; n < 6; n++) {
      expect(await (await sockets.connected(user)).join(workshop.id, 0)).toEqual({
        ok: true,
        seq: MAX_REPLAY,
        replayed: MAX_REPLAY,
      });
    }
  });

  it('answers every wrong access code, failed login and import with its own error, never 429', async () => {
    const user = await createUser(t, 'Tryer');
    for (let n = 0; n < 12; n++) {
      expect(
        (await t.request('POST', '/v1/workshops/join', { token: user.token, body: { access_code: '000-000-000' } }))
          .status,
      ).toBe(404);
      expect(
        (await t.request('POST', '/v1/auth/login', { body: { email: user.email, password: `wrong ${n}` } })).status,
      ).toBe(401);
      expect(
        (await t.request('POST', '/v1/workshops', { token: user.token, body: { url: 'http://10.0.0.1/file.json' } }))
          .status,
      ).toBe(400);
    }
  });

  it('takes every signup and confirmation mail sent again', async () => {
    const users = [];
    for (let n = 0; n < 12; n++) users.push(await createUser(t, `Signup ${n}`));
    for (let n = 0; n < 4; n++)
      expect((await t.request('POST', '/v1/user/me/confirmation', { token: users[0]!.token })).status).toBe(204);
  });

  it('sends every invitation mail (past 200 a day)', async () => {
    const inviter = await createUser(t, 'Inviter');
    const workshop = await seedWorkshop(t, inviter);
    const addresses = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, n) => `guest-${from + n}@example.test`).join(',');
    for (const [from, to] of [
      [0, 100],
      [100, 200],
      [200, 201],
    ] as const) {
      const res = await t.request('POST', `/v1/workshops/${workshop.id}/invitations`, {
        token: inviter.token,
        body: { emails: addresses(from, to), content: 'Join us.' },
      });
      expect(res.status).toBe(201);
    }
    const { outbox } = t.tables;
    expect((await t.db.select({ n: count() }).from(outbox).where(eq(outbox.senderId, inviter.id)))[0]!.n).toBe(201);
  });

  it('takes every export asked for (past 5 waiting a workshop, 10 a user)', async () => {
    const user = await createUser(t, 'Exporter');
    const workshop = await seedWorkshop(t, user);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.request('POST', `/v1/workshops/${workshop.id}/exports`, { token: user.token, body: { type: 'csv' } }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(12).fill(201));
  });
});
