import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, useBrowser, type TestBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { boardScene, pointIn, type BoardScene } from './helpers/console-board';

/*
 * The console's Canvas tab (docs/pages.md#the-canvas) in a real chromium: clusters placed on a
 * SWOT canvas's zones with a mouse, a finger and the keyboard alone, seen by a second console and
 * over REST; two consoles dragging the same cluster at once ending alike; and the agenda's canvas
 * form saved without losing what was placed.
 */

type Scene = BoardScene & { zones: Record<string, string> };

/** Fay's "Retro" with the clusters Keep, Change and Try, and the SWOT canvas (`zones`: ids by name). */
async function canvasScene(t: { url: string }): Promise<Scene> {
  const s = await boardScene(t, { Keep: [], Change: [], Try: [] });
  const canvas = await s.fay.api.post('/v1/workshops/{workshop_id}/canvas', {
    ...s.inWorkshop,
    body: { canvas_id: 'swot' },
  });
  return { ...s, zones: Object.fromEntries(canvas.zones.map((zone) => [zone.name, zone.id])) };
}

async function openCanvasTab(
  browser: TestBrowser,
  t: { url: string },
  s: Scene,
  options = LAPTOP as BrowserContextOptions,
) {
  const opened = await browser.newPage(options);
  opened.page.setDefaultTimeout(8000);
  await openConsoleWithToken(opened.page, t.url, s.fay.api.token!, `/workshops/${s.id}?tab=canvas`);
  await zone(opened.page, 'Threats').waitFor();
  return opened;
}

const zone = (page: Page, name: string) => page.getByRole('region', { name, exact: true });
const chip = (page: Page, title: string) => page.getByRole('button', { name: title, exact: true });
/** The zone the page draws the cluster in ('none' when in no zone or not on the canvas). */
const zoneShown = (page: Page, clusterId: string) =>
  page.evaluate(
    (id) =>
      document.querySelector(`[data-cluster-id="${id}"]`)?.closest('[data-zone-id]')?.getAttribute('data-zone-id') ??
      'none',
    clusterId,
  );
/** The cluster each zone links to, over REST. */
const linksOverRest = async (s: Scene) =>
  Object.fromEntries(
    (await s.fay.api.get('/v1/workshops/{workshop_id}/canvas', s.inWorkshop)).zones.map((z) => [z.name, z.cluster_id]),
  );
const zoneOverRest = (s: Scene, name: string) =>
  s.fay.api.get('/v1/workshops/canvas/zones/{id}', { params: { path: { id: s.zones[name]! } } });

/** Presses the mouse on `from`, moves into `to` in small steps as a hand would, and (unless told not to) lets go. */
async function drag(page: Page, from: Locator, to: Locator, release = true): Promise<void> {
  await from.scrollIntoViewIfNeeded();
  const start = await pointIn(from, 0.5);
  const end = await pointIn(to, 0.6);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(end.x, end.y, { steps: 8 });
  if (release) await page.mouse.up();
}

describe.skipIf(!browserAvailable)('the console: the canvas by hand', () => {
  const t = useServer();
  const browser = useBrowser();

  it('places clusters in zones by pointer and by keyboard, seen by a second console and over REST', async () => {
    const s = await canvasScene(t);
    const { page, problems } = await openCanvasTab(browser, t, s);
    const other = await openCanvasTab(browser, t, s);
    await expectAccessible(page, 'the canvas tab');

    // A mouse drags Keep from the clusters not on the canvas into Strengths.
    await drag(page, chip(page, 'Keep'), zone(page, 'Strengths'));
    await zone(other.page, 'Strengths').getByRole('button', { name: 'Keep', exact: true }).waitFor();
    expect(await zoneOverRest(s, 'Strengths')).toMatchObject({ cluster_id: s.cards.Keep });

    // The keyboard carries Change from the first zone to Threats, each step told.
    const live = page.locator('.canvas-hand [aria-live="assertive"]');
    await chip(page, 'Change').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => live.textContent()).toMatch(/^Picked up Change, over the zone Strengths\./);
    for (let step = 0; step < 3; step++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => live.textContent()).toBe('Change over the zone Weaknesses.');
    for (let step = 0; step < 2; step++) await page.keyboard.press('ArrowDown');
    await expect.poll(() => live.textContent()).toBe('Change over the zone Threats.');
    await page.keyboard.press('Enter');
    await expect.poll(() => live.textContent()).toBe('Change dropped in the zone Threats.');
    await zone(other.page, 'Threats').getByRole('button', { name: 'Change', exact: true }).waitFor();
    expect(await zoneOverRest(s, 'Threats')).toMatchObject({ cluster_id: s.cards.Change });
    // The keyboard stays on the cluster dropped, drawn anew in its zone.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-cluster-id')))
      .toBe(s.cards.Change);

    // Space picks up too; Escape puts the cluster back and writes nothing.
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Escape');
    await expect.poll(() => live.textContent()).toBe('Move of Change cancelled.');
    expect(await zoneShown(page, s.cards.Change!)).toBe(s.zones.Threats);

    // The second console moves Keep on: the first follows, and Strengths lets go of it.
    await drag(other.page, chip(other.page, 'Keep'), zone(other.page, 'Opportunities'));
    await zone(page, 'Opportunities').getByRole('button', { name: 'Keep', exact: true }).waitFor();
    await expect
      .poll(() => linksOverRest(s))
      .toEqual({
        Strengths: null,
        Weaknesses: null,
        Opportunities: s.cards.Keep,
        Threats: s.cards.Change,
      });
    expect(await zone(page, 'Strengths').getByRole('button').count()).toBe(0);
    expect([...problems.errors, ...other.problems.errors]).toEqual([]);
  });

  it('places a cluster dragged by a finger on a phone', async () => {
    const s = await canvasScene(t);
    const { page, problems } = await openCanvasTab(browser, t, s, PHONE);
    await expectAccessible(page, 'the canvas tab on a phone');
    // Touches as the phone's screen sends them (Playwright's own touchscreen only taps).
    const cdp = await page.context().newCDPSession(page);
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', at?: { x: number; y: number }) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: at ? [{ x: at.x, y: at.y }] : [] });
    const target = zone(page, 'Weaknesses');
    await target.scrollIntoViewIfNeeded();
    const from = await pointIn(chip(page, 'Try'), 0.5);
    const to = await pointIn(target, 0.6);
    await touch('touchStart', from);
    for (let step = 1; step <= 8; step++)
      await touch('touchMove', { x: from.x + ((to.x - from.x) * step) / 8, y: from.y + ((to.y - from.y) * step) / 8 });
    await touch('touchEnd');
    await target.getByRole('button', { name: 'Try', exact: true }).waitFor();
    await expect.poll(async () => (await zoneOverRest(s, 'Weaknesses')).cluster_id).toBe(s.cards.Try);
    await expectAccessible(page, 'the canvas tab on a phone, a cluster placed');
    expect(problems.errors).toEqual([]);
  });

  it('two consoles dropping the same cluster at once end in the same state', async () => {
    const s = await canvasScene(t);
    const [a, b] = [await openCanvasTab(browser, t, s), await openCanvasTab(browser, t, s)];
    // Both hold Try, each over another zone, and let go together.
    await drag(a.page, chip(a.page, 'Try'), zone(a.page, 'Strengths'), false);
    await drag(b.page, chip(b.page, 'Try'), zone(b.page, 'Threats'), false);
    // Each sees the other's drag through presence before anything is written.
    await a.page.locator('.canvas-ghost-other', { hasText: 'Try' }).waitFor();
    await b.page.locator('.canvas-ghost-other', { hasText: 'Try' }).waitFor();
    await Promise.all([a.page.mouse.up(), b.page.mouse.up()]);

    const id = s.cards.Try!;
    await expect
      .poll(async () => {
        const [shownA, shownB] = [await zoneShown(a.page, id), await zoneShown(b.page, id)];
        return shownA === shownB && [s.zones.Strengths, s.zones.Threats].includes(shownA);
      })
      .toBe(true);
    // The zone both show is linked to Try in the document, which REST reads.
    const where = await zoneShown(a.page, id);
    const name = Object.entries(s.zones).find(([, zoneId]) => zoneId === where)![0];
    await expect.poll(async () => (await zoneOverRest(s, name)).cluster_id).toBe(id);
    // The other zone let go of it: a cluster is linked by one zone at most.
    expect((await zoneOverRest(s, name === 'Strengths' ? 'Threats' : 'Strengths')).cluster_id).toBeNull();
    await expect.poll(() => a.page.locator('.canvas-ghost-other').count()).toBe(0);
    // And both draw every cluster alike.
    const drawn = (page: Page) => Promise.all(Object.values(s.cards).map((card) => zoneShown(page, card)));
    expect(await drawn(a.page)).toEqual(await drawn(b.page));
    expect([...a.problems.errors, ...b.problems.errors]).toEqual([]);
  });

  it('keeps the clusters placed when the canvas form is saved', async () => {
    const s = await canvasScene(t);
    const { page, problems } = await openCanvasTab(browser, t, s);
    const other = await openCanvasTab(browser, t, s);
    await drag(page, chip(page, 'Keep'), zone(page, 'Strengths'));
    await expect.poll(async () => (await zoneOverRest(s, 'Strengths')).cluster_id).toBe(s.cards.Keep);

    await page.getByRole('link', { name: 'Agenda' }).click();
    const panel = page.getByRole('region', { name: 'Canvas' });
    await panel.getByText('Change the grid and zones').click();
    const layout = panel.getByRole('form', { name: 'Canvas layout' });
    await layout.getByLabel('Columns').fill('14');
    await layout.getByRole('group', { name: 'Zone 1' }).getByLabel('Name').fill('Our strengths');
    await layout.getByRole('button', { name: 'Remove zone 4 (Threats)' }).click();
    await layout.getByRole('button', { name: 'Save canvas' }).click();
    await expect
      .poll(async () => (await s.fay.api.get('/v1/workshops/{workshop_id}/canvas', s.inWorkshop)).background.cols)
      .toBe(14);

    const saved = await s.fay.api.get('/v1/workshops/{workshop_id}/canvas', s.inWorkshop);
    expect(saved.zones.map((z) => [z.id, z.name, z.cluster_id])).toEqual([
      [s.zones.Strengths, 'Our strengths', s.cards.Keep],
      [s.zones.Weaknesses, 'Weaknesses', null],
      [s.zones.Opportunities, 'Opportunities', null],
    ]);
    // The other console, on the document, shows Keep where it was, in the renamed zone.
    await zone(other.page, 'Our strengths').getByRole('button', { name: 'Keep', exact: true }).waitFor();
    expect(await zone(other.page, 'Threats').count()).toBe(0);
    expect([...problems.errors, ...other.problems.errors]).toEqual([]);
  });
});
