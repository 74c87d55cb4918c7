import { describe, expect, it } from 'vitest';
import { useServer, useLiveWorkshops } from './helpers/cast';
import { eventLog } from './helpers/factories';
import { sdkIllustrate, sdkRunningWorkshop, sdkUser, sdkWorkshop } from './helpers/sdk';

/*
 * Whether a workshop has a canvas (`has_canvas`) and a step an illustration (`has_illustration`),
 * said by their outputs before anyone asks for them, since asking answers 404 when there is none
 * (docs/api.md#canvas-and-illustrations-known-before-asking): over REST, in the logged changes,
 * and in the SDK's live state as the events come. The pages that rely on it: pages-ordinary-load.test.ts.
 */

const t = useServer();
const openLive = useLiveWorkshops();

type Logged = { action: string; change: Record<string, { has_canvas?: boolean; has_illustration?: boolean }> };
const lastLogged = async (workshopId: string, action: string) =>
  ((await eventLog(t, workshopId)) as unknown as Logged[]).filter((event) => event.action === action).at(-1)?.change;

describe('a canvas and illustrations known before asking', () => {
  it('says on the workshop whether it has a canvas: over REST, in its changes, and in the live state', async () => {
    const fay = await sdkUser(t, 'Fay');
    const pat = await sdkUser(t, 'Pat');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [pat.api], 'Canvas or not');
    const live = await openLive(pat.api, id);
    const read = async () => (await pat.api.get('/v1/workshops/{id}', { params: { path: { id } } })).has_canvas;
    const listed = async () => (await fay.api.get('/v1/user/me/workshops')).find((w) => w.id === id)?.has_canvas;
    expect([await read(), await listed(), live.state.workshop.has_canvas]).toEqual([false, false, false]);

    await fay.api.post('/v1/workshops/{workshop_id}/canvas', { ...inWorkshop, body: { canvas_id: 'swot' } });
    expect([await read(), await listed()]).toEqual([true, true]);
    await expect.poll(() => live.state.workshop.has_canvas).toBe(true);
    // A workshop's change carries it, and the live state keeps it through `workshop:updated`.
    const renamed = await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { title: 'Renamed' } });
    expect(renamed.has_canvas).toBe(true);
    expect((await lastLogged(id, 'updateWorkshop'))?.workshop?.has_canvas).toBe(true);
    await expect.poll(() => live.state.workshop.title).toBe('Renamed');
    expect(live.state.workshop.has_canvas).toBe(true);
    // Replaced (removed, then added in one write): still one.
    await fay.api.post('/v1/workshops/{workshop_id}/canvas', { ...inWorkshop, body: { canvas_id: 'moscow' } });
    await expect.poll(() => eventLog(t, id).then((log) => log.at(-1)?.action)).toBe('addCanvas');
    expect(await read()).toBe(true);
    await expect.poll(() => live.state.seq).toBe((await eventLog(t, id)).at(-1)!.seq);
    expect(live.state.workshop.has_canvas).toBe(true);

    await fay.api.delete('/v1/workshops/{workshop_id}/canvas', inWorkshop);
    expect([await read(), await listed()]).toEqual([false, false]);
    await expect.poll(() => live.state.workshop.has_canvas).toBe(false);
  });

  it('says on each step whether it has an illustration: over REST, in step changes, and in the live state', async () => {
    // Fay's running workshop, its current step "Collect", and a second step.
    const { fay, pat, id, inWorkshop, step: collect } = await sdkRunningWorkshop(t);
    const vote = await fay.api.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Vote' } });
    expect([collect.has_illustration, vote.has_illustration]).toEqual([false, false]);
    const makeCurrent = (stepId: string) =>
      fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: stepId } });
    const live = await openLive(pat.api, id);
    const listed = async () =>
      (await pat.api.get('/v1/workshops/{workshop_id}/steps', inWorkshop)).map((step) => step.has_illustration);
    const one = async (stepId: string) =>
      (
        await pat.api.get('/v1/workshops/{workshop_id}/steps/{id}', {
          params: { path: { workshop_id: id, id: stepId } },
        })
      ).has_illustration;
    const inLive = () => [...live.state.steps.map((step) => step.has_illustration), live.state.step?.has_illustration];
    expect(await listed()).toEqual([false, false]);
    expect(inLive()).toEqual([false, false, false]);

    await sdkIllustrate(fay.api, id, collect.id);
    expect(await listed()).toEqual([true, false]);
    expect([await one(collect.id), await one(vote.id)]).toEqual([true, false]);
    await expect.poll(inLive).toEqual([true, false, true]);

    // A step's own change, and a step made current, carry it.
    const renamed = await fay.api.put('/v1/workshops/{workshop_id}/steps/{id}', {
      params: { path: { workshop_id: id, id: collect.id } },
      body: { name: 'Gather' },
    });
    expect(renamed.has_illustration).toBe(true);
    expect((await lastLogged(id, 'updateStep'))?.step?.has_illustration).toBe(true);
    await makeCurrent(vote.id);
    expect((await lastLogged(id, 'changeStep'))?.step?.has_illustration).toBe(false);
    await expect.poll(() => live.state.step?.id).toBe(vote.id);
    expect(inLive()).toEqual([true, false, false]);
    await makeCurrent(collect.id);
    expect((await lastLogged(id, 'changeStep'))?.step?.has_illustration).toBe(true);
    await expect.poll(() => live.state.step?.id).toBe(collect.id);
    expect(inLive()).toEqual([true, false, true]);

    await fay.api.delete('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', {
      params: { path: { workshop_id: id, step_id: collect.id } },
    });
    expect(await listed()).toEqual([false, false]);
    await expect.poll(inLive).toEqual([false, false, false]);
  });
});
