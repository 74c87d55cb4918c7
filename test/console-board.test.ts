import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, PHONE } from './helpers/console';
import { boardScene, clusterColumn, dragTo, ideaCard, openBoard, pointIn, titlesIn } from './helpers/console-board';

/*
 * The console's Board tab (docs/pages.md#the-console) in a real chromium: cards arriving live,
 * added, and moved and merged by pointer and by keyboard alone (on a laptop and on a phone), each
 * checked over REST. Editing, results and a card's detail: console-board-cards.test.ts.
 *
 * Among the slowest files (10 to 25 s): moves and merges are made as a person makes them, with
 * a pointer, a finger and the keyboard alone on a laptop and on a phone, each one checked over
 * REST.
 */

describe.skipIf(!browserAvailable)('the console: the board, moving cards', () => {
  const t = useServer();
  const browser = useBrowser();

  it("shows a participant's idea as it arrives, and adds clusters and ideas", async () => {
    const s = await boardScene(t, { Keep: ['Pairing'] });
    const { page, problems } = await openBoard(browser, t, s);
    await shown(page, '.cluster h3', 'Keep');
    await expectAccessible(page, 'the board');

    const written = await s.pat.api.post('/v1/workshops/{workshop_id}/cards', {
      ...s.inWorkshop,
      body: { title: 'Shorter standups', parent: s.cards.Keep! },
    });
    await shown(page, `[data-card-id="${written.id}"] .card-title`, 'Shorter standups');
    expect(await titlesIn(page, 'Keep')).toEqual(['Pairing', 'Shorter standups']);

    const form = page.getByRole('form', { name: 'Add a cluster' });
    await form.getByLabel('Cluster title').fill('Change');
    await form.getByLabel('Colour').selectOption('green');
    await form.getByRole('button', { name: 'Add cluster' }).click();
    await clusterColumn(page, 'Change').waitFor();
    await page.getByLabel('New idea in Change').fill('Fewer meetings');
    await page.getByLabel('New idea in Change').press('Enter');
    await ideaCard(page, 'Fewer meetings').waitFor();

    const cards = await s.fay.api.get('/v1/workshops/{workshop_id}/cards', s.inWorkshop);
    const change = cards.find((card) => card.title === 'Change')!;
    expect(change).toMatchObject({ type: 'cluster', color: 'green' });
    expect(cards.find((card) => card.title === 'Fewer meetings')).toMatchObject({ parent: change.id, type: 'idea' });
    expect(problems.errors).toEqual([]);
  });

  it('moves ideas by dragging them onto a cluster or between ideas, and clusters among themselves', async () => {
    const s = await boardScene(t, { Keep: ['Pairing', 'Demos'], Change: ['Standups'], Try: [] });
    const { page, problems } = await openBoard(browser, t, s);

    // Onto another cluster: to its end.
    await dragTo(page, ideaCard(page, 'Pairing'), () => pointIn(clusterColumn(page, 'Change').locator('h3'), 0.5));
    await expect.poll(() => titlesIn(page, 'Change')).toEqual(['Standups', 'Pairing']);
    expect(await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card('Pairing'))).toMatchObject({
      parent: s.cards.Change,
      position: 1,
    });

    // Between two ideas: onto the top edge of the first one.
    await dragTo(page, ideaCard(page, 'Demos'), () => pointIn(ideaCard(page, 'Standups'), 0.1));
    await expect.poll(() => titlesIn(page, 'Change')).toEqual(['Demos', 'Standups', 'Pairing']);
    expect(await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card('Demos'))).toMatchObject({
      parent: s.cards.Change,
      position: 0,
    });

    // A cluster by its grip, before the first one.
    const keep = await pointIn(clusterColumn(page, 'Keep'), 0.05);
    await dragTo(page, clusterColumn(page, 'Try'), { ...keep, x: keep.x - 100 });
    await expect.poll(() => page.locator('.cluster h3').allTextContents()).toEqual(['Try', 'Keep', 'Change']);
    expect(await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card('Try'))).toMatchObject({ position: 0 });
    expect(problems.errors).toEqual([]);
  });

  it('moves an idea dragged by a finger on a phone', async () => {
    const s = await boardScene(t, { Keep: ['Pairing'], Change: ['Standups'] });
    const { page, problems } = await openBoard(browser, t, s, PHONE);
    // Touches as the phone's screen sends them (Playwright's own touchscreen only taps).
    const cdp = await page.context().newCDPSession(page);
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', at?: { x: number; y: number }) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: at ? [{ x: at.x, y: at.y }] : [] });
    // Scrolled to the end, both ends of the path lie away from the screen's lower edge, where a
    // card held there scrolls the page under the finger (and, on a slow machine, past the column).
    await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
    const from = await pointIn(ideaCard(page, 'Pairing').locator('.grip'), 0.5);
    const to = await pointIn(clusterColumn(page, 'Change').locator('h3'), 0.5);
    await touch('touchStart', from);
    for (let step = 1; step <= 8; step++)
      await touch('touchMove', { x: from.x + ((to.x - from.x) * step) / 8, y: from.y + ((to.y - from.y) * step) / 8 });
    await touch('touchEnd');
    await expect.poll(() => titlesIn(page, 'Change')).toEqual(['Standups', 'Pairing']);
    expect(await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card('Pairing'))).toMatchObject({
      parent: s.cards.Change,
    });
    expect(problems.errors).toEqual([]);
  });

  for (const [device, options] of [
    ['a laptop', LAPTOP],
    ['a phone', PHONE],
  ] as const) {
    it(`moves and merges ideas with the keyboard alone, on ${device}`, async () => {
      const s = await boardScene(t, { Keep: ['Pairing', 'Demos'], Change: ['Standups'] });
      const { page, problems } = await openBoard(browser, t, s, options);
      const live = page.locator('[aria-live="assertive"]');

      // Picked up with Space, one cluster to the right, one place up, dropped with Space.
      await page.getByRole('button', { name: 'Pick up Demos' }).focus();
      await page.keyboard.press('Space');
      await expect.poll(() => live.textContent()).toMatch(/^Picked up Demos, in Keep, place 2 of 2/);
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => live.textContent()).toBe('Demos: in Change, place 2 of 2.');
      await page.keyboard.press('ArrowUp');
      await expect.poll(() => live.textContent()).toBe('Demos: in Change, place 1 of 2.');
      await page.keyboard.press('Space');
      await expect.poll(() => titlesIn(page, 'Change')).toEqual(['Demos', 'Standups']);
      expect(await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card('Demos'))).toMatchObject({
        parent: s.cards.Change,
        position: 0,
      });
      // The focus stays with the card moved, so the next move goes on from there.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Pick up Demos');

      // Escape puts a picked-up card back: nothing is sent.
      await page.keyboard.press('Space');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('Escape');
      await expect.poll(() => live.textContent()).toMatch(/move cancelled/);
      expect(await titlesIn(page, 'Change')).toEqual(['Demos', 'Standups']);

      // A cluster moves among the clusters the same way.
      await page.getByRole('button', { name: 'Pick up cluster Change' }).focus();
      await page.keyboard.press('Space');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('Space');
      await expect.poll(() => page.locator('.cluster h3').allTextContents()).toEqual(['Change', 'Keep']);
      expect(await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card('Change'))).toMatchObject({
        position: 0,
      });

      // "Merge with…": the other idea chosen from a list, then confirmed.
      await ideaCard(page, 'Standups').getByRole('button', { name: 'Merge with…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Merge two ideas' });
      await dialog.getByLabel('Merge “Standups” with').selectOption({ label: 'Pairing' });
      await expect.poll(() => dialog.getByLabel('Title of the merged idea').inputValue()).toBe('Pairing');
      await dialog.getByLabel('Title of the merged idea').fill('Pair on standups');
      await expectAccessible(page, `the merge dialog on ${device}`);
      await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
      await ideaCard(page, 'Pair on standups').waitFor();
      const cards = await s.fay.api.get('/v1/workshops/{workshop_id}/cards', s.inWorkshop);
      expect(cards.map((card) => card.title)).toEqual(['Change', 'Demos', 'Keep', 'Pair on standups']);
      expect(problems.errors).toEqual([]);
    });
  }

  it('merges two ideas dropped one onto the other, after a confirmation', async () => {
    const s = await boardScene(t, { Keep: ['Pairing'], Change: ['Standups', 'Retros'] });
    await s.pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
      ...s.onCard('Pairing'),
      body: { value: 1 },
    });
    const { page, problems } = await openBoard(browser, t, s);

    await dragTo(page, ideaCard(page, 'Pairing'), () => pointIn(ideaCard(page, 'Retros'), 0.5));
    const dialog = page.getByRole('dialog', { name: 'Merge two ideas' });
    await expect.poll(() => dialog.getByLabel('Title of the merged idea').inputValue()).toBe('Retros');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await titlesIn(page, 'Keep')).toEqual(['Pairing']);

    await dragTo(page, ideaCard(page, 'Pairing'), () => pointIn(ideaCard(page, 'Retros'), 0.5));
    await dialog.getByLabel('Title of the merged idea').fill('Pairing retros');
    await dialog.getByRole('button', { name: 'Merge', exact: true }).click();
    await expect.poll(() => titlesIn(page, 'Change')).toEqual(['Standups', 'Pairing retros']);
    await expect.poll(() => titlesIn(page, 'Keep')).toEqual([]);
    const cards = await s.fay.api.get('/v1/workshops/{workshop_id}/cards', s.inWorkshop);
    const merged = cards.find((card) => card.title === 'Pairing retros')!;
    expect(merged).toMatchObject({ parent: s.cards.Change, position: 1 });
    expect(merged.summary.score).toBe(1);
    expect(cards.some((card) => card.id === s.cards.Pairing || card.id === s.cards.Retros)).toBe(false);
    expect(problems.errors).toEqual([]);
  });
});
