import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible } from './helpers/console';
import { boardScene, openBoard, titlesIn } from './helpers/console-board';

/*
 * The console's Board tab (docs/pages.md#the-console) in a real chromium: cards edited, set aside,
 * brought back and deleted, the filter, the results by votes and by a criterion, a card's
 * comments, items and files, and a board of 500 cards opened and used. Moving: console-board.test.ts;
 * folding, searching and the keys at 500 and 2,000 cards: console-board-scale.test.ts.
 *
 * Among the slowest files (10 to 20 s): the board's editing and results through its own controls
 * in chromium, and a board of 500 cards, seeded first, opened and used.
 */

describe.skipIf(!browserAvailable)('the console: the board, its cards and results', () => {
  const t = useServer();
  const browser = useBrowser();

  it('edits, sets aside, brings back and deletes cards, and filters the board', async () => {
    const s = await boardScene(t, { Keep: ['Pairing', 'Demos'] });
    const { page, problems } = await openBoard(browser, t, s);
    const read = (title: string) => s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card(title));

    await page.getByRole('button', { name: 'Pairing', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Pairing' });
    await dialog.getByLabel('Title', { exact: true }).fill('Pair programming');
    await dialog.getByLabel('Text').fill('Twice a week');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await shown(page, 'dialog .done', 'Saved.');
    expect(await read('Pairing')).toMatchObject({ title: 'Pair programming', content: 'Twice a week' });
    await expectAccessible(page, 'a card’s detail');

    // Set aside, it leaves the active cards and shows among those set aside.
    await page.getByRole('dialog').getByRole('button', { name: 'Set aside' }).click();
    await expect.poll(async () => (await read('Pairing')).aside).toBe(true);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => titlesIn(page, 'Keep')).toEqual(['Demos']);
    await page.getByLabel('Show', { exact: true }).selectOption('aside');
    await expect.poll(() => titlesIn(page, 'Keep')).toEqual(['Pair programming']);
    await page.getByLabel('Show', { exact: true }).selectOption('all');
    await expect.poll(() => titlesIn(page, 'Keep')).toEqual(['Pair programming', 'Demos']);
    await page.getByRole('button', { name: 'Pair programming', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Bring back' }).click();
    await expect.poll(async () => (await read('Pairing')).aside).toBe(false);
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

    // A cluster's colour.
    await page.getByRole('button', { name: 'Keep', exact: true }).click();
    await page.getByRole('dialog').getByLabel('Colour').selectOption('red');
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
    await expect.poll(async () => (await read('Keep')).color).toBe('red');
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.locator('.cluster.color-red').waitFor();

    // Deleting asks first.
    await page.getByRole('button', { name: 'Demos', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await expect.poll(() => titlesIn(page, 'Keep')).toEqual(['Pair programming']);
    const cards = await s.fay.api.get('/v1/workshops/{workshop_id}/cards', s.inWorkshop);
    expect(cards.map((card) => card.title)).toEqual(['Keep', 'Pair programming']);
    expect(problems.errors).toEqual([]);
  });

  it('ranks the ideas by votes and by a criterion’s average, with the figures', async () => {
    const s = await boardScene(t, { Keep: ['Pairing', 'Demos'], Change: ['Standups'] });
    const impact = await s.fay.api.post('/v1/workshops/{workshop_id}/criteria', {
      ...s.inWorkshop,
      body: { title: 'Impact', scale: 1 },
    });
    const { page, problems } = await openBoard(browser, t, s);
    await page.getByRole('button', { name: 'Results' }).click();
    const rows = () => page.locator('.results tbody tr').evaluateAll((trs) => trs.map((tr) => tr.textContent));
    await expect.poll(rows).toEqual(['1PairingKeep0—', '2DemosKeep0—', '3StandupsChange0—']);

    const vote = (api: typeof s.fay.api, title: string) =>
      api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', { ...s.onCard(title), body: { value: 1 } });
    await vote(s.pat.api, 'Standups');
    await vote(s.fay.api, 'Standups');
    await vote(s.pat.api, 'Demos');
    await expect.poll(rows).toEqual(['1StandupsChange2—', '2DemosKeep1—', '3PairingKeep0—']);

    const rate = (api: typeof s.fay.api, title: string, value: number) =>
      api.post('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
        ...s.onCard(title),
        body: { value, criterium_id: impact.id },
      });
    await rate(s.pat.api, 'Pairing', 5);
    await rate(s.fay.api, 'Pairing', 3);
    await rate(s.pat.api, 'Demos', 2);
    await page.getByLabel('Sort by').selectOption({ label: 'Average: Impact' });
    await expect.poll(rows).toEqual(['1PairingKeep04.0 (2 ratings)', '2DemosKeep12.0 (1 rating)', '3StandupsChange2—']);
    await expectAccessible(page, 'the results');
    expect(problems.errors).toEqual([]);
  });

  it('shows a card’s comments, items and files as they come, and adds a comment', async () => {
    const s = await boardScene(t, { Keep: ['Pairing'] });
    const pros = await s.fay.api.post('/v1/workshops/{workshop_id}/sections', {
      ...s.inWorkshop,
      body: { title: 'Pros' },
    });
    await s.pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/items', {
      ...s.onCard('Pairing'),
      body: { content: 'Faster reviews', section_id: pros.id },
    });
    await s.pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/comments', {
      ...s.onCard('Pairing'),
      body: { content: 'Yes please' },
    });
    const blob = await s.pat.api.post('/v1/uploads', {
      body: { file: new File(['hello'], 'notes.txt', { type: 'text/plain' }) },
    });
    await s.pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', {
      ...s.onCard('Pairing'),
      body: { blob },
    });
    const { page, problems } = await openBoard(browser, t, s);
    await shown(page, '.idea .meta', 'Score 0 · 1 comment · 1 file');

    await page.getByRole('button', { name: 'Pairing', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Pairing' });
    await dialog.getByText('Yes please').waitFor();
    await dialog.getByRole('heading', { name: 'Pros' }).waitFor();
    await dialog.getByText('Faster reviews').waitFor();
    expect(await dialog.getByRole('link', { name: 'notes.txt' }).getAttribute('href')).toMatch(/\/files\/.+signature=/);
    await expectAccessible(page, 'a card’s comments, items and files');

    await s.pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/comments', {
      ...s.onCard('Pairing'),
      body: { content: 'Mobbing too' },
    });
    await dialog.getByText('Mobbing too').waitFor();
    await dialog.getByLabel('Add a comment').fill('Agreed');
    await dialog.getByRole('button', { name: 'Post the comment' }).click();
    await dialog.getByText('Agreed', { exact: true }).waitFor();
    const comments = await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/comments', s.onCard('Pairing'));
    expect(comments.map((comment) => comment.content)).toEqual(['Yes please', 'Mobbing too', 'Agreed']);
    expect(problems.errors).toEqual([]);
  });

  it('opens a board of 500 cards with every card drawn, the last one clickable, and a card moved', async () => {
    const s = await boardScene(t, {});
    const lines = ['type,title,cluster'];
    for (let c = 1; c <= 25; c++) {
      lines.push(`cluster,Theme ${c},`);
      for (let i = 1; i <= 19; i++) lines.push(`idea,Idea ${c}-${i},Theme ${c}`);
    }
    const imported = await s.fay.api.put('/v1/workshops/{workshop_id}/cards', {
      ...s.inWorkshop,
      body: { file: new Blob([lines.join('\n')], { type: 'text/csv' }) },
    });
    expect(imported).toHaveLength(500);
    const { page, problems } = await openBoard(browser, t, s);
    await expect.poll(() => page.locator('.idea').count(), { timeout: 20_000 }).toBe(475);

    // Away to another tab and back: every card drawn again, and the last one opens with a click.
    // (How fast: bench/console.ts.)
    await page.getByRole('link', { name: 'Log' }).click();
    await page.locator('.clusters').waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Board', exact: true }).click();
    await expect.poll(() => page.locator('.clusters .idea').count(), { timeout: 20_000 }).toBe(475);
    expect(await page.locator('.cluster').count()).toBe(25);
    await page.getByRole('button', { name: 'Idea 25-19', exact: true }).click({ timeout: 20_000 });
    await page.getByRole('dialog', { name: 'Idea 25-19' }).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();

    // Usable: a card moved with the keyboard, and a new idea arriving.
    await page.getByRole('button', { name: 'Pick up Idea 3-19' }).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Space');
    await expect
      .poll(() => titlesIn(page, 'Theme 4').then((titles) => titles.slice(-2)))
      .toEqual(['Idea 3-19', 'Idea 4-19']);
    const moved = imported.find((card) => card.title === 'Idea 3-19')!;
    const theme4 = imported.find((card) => card.title === 'Theme 4')!;
    const card = await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', {
      params: { path: { workshop_id: s.id, id: moved.id } },
    });
    expect(card).toMatchObject({ parent: theme4.id, position: 18 });
    expect(problems.errors).toEqual([]);
  }, 60_000);
});
