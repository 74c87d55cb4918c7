import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { t as said } from '../src/i18n/messages';
import { browserAvailable, htmlLanguage, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP } from './helpers/console';
import {
  boardScene,
  clusterColumn,
  dragTo,
  ideaCard,
  openBoard,
  pointIn,
  type BoardScene,
} from './helpers/console-board';
import { expectNoTextCutOff, unmarkedTexts } from './helpers/pseudo';

/*
 * The Board and Agenda tabs in the account's language (docs/i18n.md#which-language), in a real
 * chromium: French words and plurals, Arabic right to left with the board's arrow keys and drags
 * following the reading direction (docs/i18n.md#right-to-left), and the pseudo-locale marking
 * every word of both tabs. The words expected are the catalogs', formatted on the server.
 */

/** The board of a workshop with two clusters, opened as Fay in `locale` (or the pseudo-locale, asked for by name). */
async function boardIn(browser: ReturnType<typeof useBrowser>, server: { url: string }, locale: string) {
  const s = await boardScene(server, { Keep: ['Pairing', 'Demos'], Change: ['Standups'] });
  const pseudo = locale === 'en-XA';
  if (!pseudo) await s.fay.api.put('/v1/user/me', { body: { locale } });
  const options = pseudo ? { ...LAPTOP, extraHTTPHeaders: { 'Accept-Language': 'en-XA' } } : LAPTOP;
  const opened = await openBoard(browser, server, s, options);
  return { s, ...opened };
}

/** Opens the Agenda tab of `s`'s workshop in the same page, once it has a step, a criterion and a section. */
async function openAgenda(page: Page, server: { url: string }, s: BoardScene) {
  await s.fay.api.post('/v1/workshops/{workshop_id}/steps', { ...s.inWorkshop, body: { name: 'Warm-up' } });
  await s.fay.api.post('/v1/workshops/{workshop_id}/criteria', {
    ...s.inWorkshop,
    body: { title: 'Impact', scale: 1 },
  });
  await s.fay.api.post('/v1/workshops/{workshop_id}/sections', { ...s.inWorkshop, body: { title: 'Notes' } });
  await page.goto(`${server.url}/workshops/${s.id}?tab=agenda`);
  await page.locator('.step-row').waitFor();
  await page.locator('.titled-row[data-title="Notes"]').waitFor();
}

const focusedLabel = (page: Page) =>
  page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent);

describe.skipIf(!browserAvailable)('the console’s board and agenda in the account’s language', () => {
  const browser = useBrowser();
  const server = useServer();

  it('shows a French account the board, its counts, a card and the agenda in French, not in English', async () => {
    const { s, page, problems } = await boardIn(browser, server, 'fr');
    expect(await htmlLanguage(page)).toEqual({ lang: 'fr', dir: 'ltr' });
    await shown(page, '.board-count', said('fr', 'console.board.count', { clusters: 2, ideas: 3 }));
    await page.getByLabel(said('fr', 'console.board.show'), { exact: true }).waitFor();
    await page.getByRole('button', { name: said('fr', 'console.board.pick_up', { name: 'Demos' }) }).waitFor();
    // A whole sentence, its plurals French ones: "2 groupes affichés, 3 idées en tout".
    expect(await page.textContent('.board-count')).toBe('2 groupes affichés, 3 idées en tout');

    // The keyboard's announcements are French sentences, with the cluster's own name in them.
    await page.getByRole('button', { name: 'Prendre Demos' }).focus();
    await page.keyboard.press('Space');
    const live = page.locator('[aria-live="assertive"]');
    await expect
      .poll(() => live.textContent())
      .toBe(
        said('fr', 'console.board.announce.picked_up', {
          card: 'Demos',
          kind: 'idea',
          cluster: 'Keep',
          at: 2,
          count: 2,
        }),
      );
    await page.keyboard.press('Escape');

    // A card opened: its dialog and what people gave it.
    await ideaCard(page, 'Pairing').getByRole('button', { name: 'Pairing', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Pairing' });
    await dialog.getByRole('heading', { name: said('fr', 'console.board.feedback.scores') }).waitFor();
    await dialog.getByText(said('fr', 'console.board.feedback.score', { score: 0, count: 0 })).waitFor();
    await dialog.getByRole('button', { name: said('fr', 'console.common.close') }).click();

    // The results, ranked.
    await page.getByRole('button', { name: said('fr', 'console.board.as_results') }).click();
    await page.getByRole('heading', { name: 'Résultats' }).waitFor();
    await page.getByRole('columnheader', { name: said('fr', 'console.board.results.rank_column') }).waitFor();

    await openAgenda(page, server, s);
    await page.getByRole('heading', { name: said('fr', 'console.agenda.panel.steps') }).waitFor();
    await page.getByRole('heading', { name: 'Paramètres' }).waitFor();
    await page.getByRole('button', { name: said('fr', 'console.agenda.steps.add') }).waitFor();
    await page.getByLabel(said('fr', 'console.agenda.step.name')).waitFor();
    await page
      .getByRole('form', { name: said('fr', 'console.agenda.titled.add_label', { what: 'section' }) })
      .waitFor();
    expect(await page.textContent('.titled-row[data-title="Impact"] .meta')).toMatch(/^Évalué sur 0, 1, /);
    expect(problems.errors).toEqual([]);
  });

  it('lays the board out right to left in Arabic, its left arrow taking a held idea to the next cluster, and a drag landing on the reading side', async () => {
    const { s, page, problems } = await boardIn(browser, server, 'ar');
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    await shown(page, '.board-count', said('ar', 'console.board.count', { clusters: 2, ideas: 3 }));
    // The first cluster starts the line: on the right.
    const keep = (await clusterColumn(page, 'Keep').boundingBox())!;
    const change = (await clusterColumn(page, 'Change').boundingBox())!;
    expect(keep.x).toBeGreaterThan(change.x);
    await expectAccessible(page, 'the board, in Arabic', '.board-tab');
    await expectNoTextCutOff(page, 'the board, in Arabic');

    // Held, the idea goes to the next cluster with the left arrow, and back with the right one.
    const live = page.locator('[aria-live="assertive"]');
    const place = (cluster: string, at: number, count: number) =>
      said('ar', 'console.board.announce.step', { card: 'Demos', kind: 'idea', cluster, at, count });
    await page.getByRole('button', { name: said('ar', 'console.board.pick_up', { name: 'Demos' }) }).focus();
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => live.textContent()).toBe(place('Change', 2, 2));
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => live.textContent()).toBe(place('Keep', 2, 2));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Space');
    await expect
      .poll(async () => (await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{id}', s.card('Demos'))).parent)
      .toBe(s.cards.Change);

    // Without a card held, the left arrow goes on through a cluster's buttons as they read, from the right.
    const grip = said('ar', 'console.board.pick_up_cluster', { name: 'Keep' });
    await page.getByRole('button', { name: grip }).focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => focusedLabel(page)).toBe('Keep');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => focusedLabel(page)).toBe(grip);

    // A cluster dropped on the right half of the first one lands before it, as the line reads.
    const first = await pointIn(clusterColumn(page, 'Keep'), 0.05);
    await dragTo(page, clusterColumn(page, 'Change'), { ...first, x: first.x + 100 });
    await expect.poll(() => page.locator('.cluster h3').allTextContents()).toEqual(['Change', 'Keep']);

    await openAgenda(page, server, s);
    await page.getByRole('heading', { name: said('ar', 'console.agenda.panel.steps') }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.agenda')!).direction)).toBe('rtl');
    await expectAccessible(page, 'the agenda, in Arabic', '.agenda');
    await expectNoTextCutOff(page, 'the agenda, in Arabic');
    expect(problems.errors).toEqual([]);
  });

  it('leaves no English unmarked on the board, a card, the results and the agenda in the pseudo-locale', async () => {
    const { s, page, problems } = await boardIn(browser, server, 'en-XA');
    expect(await htmlLanguage(page)).toEqual({ lang: 'en-XA', dir: 'ltr' });
    const peoples = ['Retro', 'Keep', 'Change', 'Pairing', 'Demos', 'Standups', 'Fay', 'Pat'];
    expect(await unmarkedTexts(page, peoples)).toEqual([]);
    await expectNoTextCutOff(page, 'the view (1)');

    await ideaCard(page, 'Pairing').getByRole('button', { name: 'Pairing', exact: true }).click();
    const dialog = page.locator('dialog.board-dialog');
    await dialog.locator('#detail-files').waitFor();
    expect(await unmarkedTexts(page, peoples)).toEqual([]);
    await expectNoTextCutOff(page, 'the view (2)');
    await page.keyboard.press('Escape');
    await ideaCard(page, 'Pairing').locator('[data-act="merge"]').click();
    await dialog.locator('select').waitFor();
    expect(await unmarkedTexts(page, peoples)).toEqual([]);
    await expectNoTextCutOff(page, 'the view (3)');
    await page.keyboard.press('Escape');

    await page.locator('.board-tools .choices button').nth(1).click();
    await page.locator('.results table').waitFor();
    expect(await unmarkedTexts(page, peoples)).toEqual([]);
    await expectNoTextCutOff(page, 'the view (4)');

    // The predefined canvases' names are the service's, not the console's words.
    const canvases = (await s.fay.api.get('/v1/canvas')).map((canvas) => canvas.name);
    await openAgenda(page, server, s);
    await page.locator('.step-editor .view-group summary').click();
    await page.locator('.canvas-panel details summary').click();
    await page.locator('.canvas-form > button[type="button"]').click();
    await page.locator('.canvas-form fieldset.zone').waitFor();
    expect(await unmarkedTexts(page, [...peoples, 'Warm-up', 'Impact', 'Notes', ...canvases])).toEqual([]);
    await expectNoTextCutOff(page, 'the view (5)');
    expect(problems.errors).toEqual([]);
  });
});
