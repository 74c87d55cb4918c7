import { describe, expect, it } from 'vitest';
import type { TimerOutput } from '../src/domain/timer';
import { useServer, useSockets, useUsers } from './helpers/cast';
import { eventLog, expectError, seedWorkshopWith } from './helpers/factories';

/* The workshop's countdown timer (docs/api.md#timer). */

const t = useServer();
const [fay, pat] = useUsers(t, 'Fay', 'Pat');
const sockets = useSockets(t);

const path = (id: string) => `/v1/workshops/${id}/timer`;
const set = (id: string, body: unknown, user = fay) =>
  t.request<TimerOutput>('PUT', path(id), { token: user.token, body });
const read = (id: string, user = pat) => t.request<TimerOutput>('GET', path(id), { token: user.token });

describe('timer', () => {
  it('starts, pauses, resumes, takes more time and stops, reading the same for every member', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    expect((await read(w.id)).body).toEqual({
      state: 'stopped',
      duration_s: 0,
      ends_at: null,
      remaining_s: 0,
      server_time: expect.any(String),
    });

    const started = (await set(w.id, { duration_s: 300 })).body;
    expect(started).toMatchObject({ state: 'running', duration_s: 300 });
    const endsAt = Date.parse(started.ends_at!);
    expect(Math.abs(endsAt - (Date.parse(started.server_time) + 300_000))).toBeLessThan(50);
    expect((await read(w.id)).body).toMatchObject({ state: 'running', ends_at: started.ends_at });

    const paused = (await set(w.id, { action: 'pause' })).body;
    expect(paused).toMatchObject({ state: 'paused', ends_at: null });
    expect(paused.remaining_s).toBeGreaterThan(295);
    expect(paused.remaining_s).toBeLessThanOrEqual(300);
    // Paused, what is left does not move.
    expect((await read(w.id)).body.remaining_s).toBe(paused.remaining_s);

    const more = (await set(w.id, { add_s: 60 })).body;
    expect(more.remaining_s).toBeCloseTo(paused.remaining_s + 60, 3);
    const resumed = (await set(w.id, { action: 'resume' })).body;
    expect(resumed.state).toBe('running');
    expect(Date.parse(resumed.ends_at!) - Date.parse(resumed.server_time)).toBeCloseTo(more.remaining_s * 1000, -2);
    // Never below zero left.
    expect((await set(w.id, { add_s: -86_400 })).body).toMatchObject({ state: 'running', remaining_s: 0 });
    expect((await set(w.id, { action: 'stop' })).body).toMatchObject({
      state: 'stopped',
      ends_at: null,
      remaining_s: 0,
    });

    const log = (await eventLog(t, w.id)).filter((e) => e.action === 'changeTimer');
    expect(log).toHaveLength(6);
    expect(log[1]!.change).toMatchObject({ timer: { state: 'paused' }, changes: { state: ['running', 'paused'] } });
  });

  it('refuses transitions the state does not allow, bad bodies, participants and archived workshops', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    expectError(await set(w.id, { action: 'pause' }), 409, 'conflict');
    expectError(await set(w.id, { action: 'stop' }), 409, 'conflict');
    expectError(await set(w.id, { add_s: 10 }), 409, 'conflict');
    await set(w.id, { duration_s: 60 });
    expectError(await set(w.id, { action: 'resume' }), 409, 'conflict');
    for (const body of [
      {},
      { duration_s: 0 },
      { duration_s: 86_401 },
      { duration_s: 60, action: 'pause' },
      { action: 'rewind' },
      { add_s: 1.5 },
    ]) {
      expectError(await set(w.id, body), 400, 'invalid_request');
    }
    expectError(await set(w.id, { duration_s: 60 }, pat), 403, 'forbidden');
    expect(
      (await t.request('PUT', `/v1/workshops/${w.id}`, { token: fay.token, body: { state: 'archived' } })).status,
    ).toBe(200);
    expectError(await set(w.id, { action: 'stop' }), 409, 'workshop_archived');
    expect((await read(w.id)).body.state).toBe('running');
  });

  it('logs nothing for a change that changes nothing', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    await set(w.id, { duration_s: 60 });
    await set(w.id, { action: 'pause' });
    const before = (await eventLog(t, w.id)).length;
    expect((await set(w.id, { add_s: 0 })).status).toBe(200);
    expect(await eventLog(t, w.id)).toHaveLength(before);
  });

  it('sends timer:changed with the server clock to every joined screen', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    const screen = await sockets.joined(pat, w.id);
    const started = (await set(w.id, { duration_s: 120 })).body;
    const event = await screen.next('timer:changed');
    expect(event).toMatchObject({
      seq: 1,
      workshop_id: w.id,
      timer: { state: 'running', duration_s: 120, ends_at: started.ends_at },
    });
    expect(Date.parse(event.timer.server_time)).toBeGreaterThanOrEqual(Date.parse(started.server_time));
  });
});
