import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, openScreen, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { sdkIllustrate, sdkRunningWorkshop } from './helpers/sdk';
import { until } from './helpers/wait';

/*
 * An ordinary load asks for nothing that is not there (docs/pages.md#what-a-page-asks-for): every
 * tab of the console, the screen (a facilitator's and a participant's) and the participant page,
 * opened on a workshop without a canvas whose steps have no illustration, get no answer of 400 or
 * more and log no error, because the workshop's `has_canvas` and each step's `has_illustration`
 * say beforehand that there is none. Once a canvas and an illustration are added, the same pages
 * read them, live; removed again, nobody asks.
 *
 * Among the slowest files (about 10 s, one test): seven console tabs, two screens and the
 * participant page are each opened and left until their requests settle (half a second without
 * one), so that a late request is not missed.
 */

/** Every answer of 400 or more a page gets and every error it logs, and a wait for its requests to settle. */
function watch(page: Page) {
  const problems: string[] = [];
  const reads: string[] = [];
  let inFlight = 0;
  let lastActivity = Date.now();
  const busy = (change: number) => {
    inFlight += change;
    lastActivity = Date.now();
  };
  page.on('request', () => busy(1));
  page.on('requestfinished', () => busy(-1));
  page.on('requestfailed', () => busy(-1));
  page.on('response', (response) => {
    const where = `${response.request().method()} ${new URL(response.url()).pathname}`;
    reads.push(`${response.status()} ${where}`);
    if (response.status() >= 400) problems.push(`${response.status()} ${where}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  return {
    problems,
    reads,
    /** Resolves once no request has been on its way for half a second. */
    settled: () =>
      until(() => inFlight === 0 && Date.now() - lastActivity > 500, 'the page’s requests to settle', 8_000),
  };
}

/** What each console tab shows once it has read what it needs, beyond its own frame. */
const TAB_READY: Record<string, string> = {
  run: '.tab[data-tab="run"]',
  agenda: '.tab[data-tab="agenda"] .illustration',
  board: '.tab[data-tab="board"]',
  canvas: '.tab[data-tab="canvas"] > *',
  people: '.tab[data-tab="people"] .member-row',
  exports: '.tab[data-tab="exports"]',
  log: '.tab[data-tab="log"] .log-entry',
};

describe.skipIf(!browserAvailable)('an ordinary load', () => {
  const t = useServer();
  const browser = useBrowser();

  it('asks for no canvas and no illustration that is not there, in the console, the screen and the participant page', async () => {
    // Fay's running workshop, its current step "Collect" and a second one without illustrations, no canvas.
    const { fay, pat, id, inWorkshop, step: collect, cluster } = await sdkRunningWorkshop(t);
    await fay.api.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Vote' } });
    await pat.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'More plants', parent: cluster.id },
    });

    const icon = await fetch(`${t.url}/favicon.ico`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);

    // The console: the workshops, then the workshop's tabs in turn.
    const { page } = await browser.newPage(LAPTOP);
    const consolePage = watch(page);
    await openConsoleWithToken(page, t.url, fay.api.token!, '/');
    await page.locator('.workshop-row').first().waitFor();
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=run`);
    const tabs = page.getByRole('navigation', { name: 'Workshop' });
    for (const [tab, ready] of Object.entries(TAB_READY)) {
      await tabs.getByRole('link', { name: new RegExp(`^${tab}$`, 'i') }).click();
      await page.locator(ready).first().waitFor();
      await consolePage.settled();
    }
    await page.getByRole('link', { name: 'Agenda' }).click();
    await shown(page, '.illustration .empty', 'This step has no illustration.');
    await shown(page, '.canvas-panel > .empty', 'This workshop has no canvas.');
    expect(consolePage.problems, 'the console').toEqual([]);

    // The screen, as the console opens it for the facilitator; and a participant's, which asks for
    // nothing only facilitators may read either (the access code, the member list).
    const watchedScreen = async (token: string) => {
      const { page: screenPage } = await browser.newPage(LAPTOP);
      const watched = watch(screenPage);
      await openScreen(screenPage, t.url, id, token);
      await shown(screenPage, '#step-name', 'Collect');
      await watched.settled();
      return watched;
    };
    const screen = await watchedScreen(fay.api.token!);
    const patScreen = await watchedScreen(pat.api.token!);
    expect(screen.problems, 'the screen').toEqual([]);
    expect(patScreen.problems, 'a participant’s screen').toEqual([]);

    // The participant opens the workshop's address in the console, which sends them on to their page.
    const phone = (await browser.newPage(PHONE)).page;
    const participant = watch(phone);
    await phone.goto(`${t.url}/signup`);
    await phone.evaluate((token) => localStorage.setItem('workshop-console-token', token), pat.api.token!);
    await phone.goto(`${t.url}/workshops/${id}`);
    await phone.waitForURL(`${t.url}/w/${id}`);
    await phone.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    await shown(phone, '#step-name', 'Collect');
    await participant.settled();
    expect(participant.problems, 'the participant page').toEqual([]);

    // A canvas and an illustration added: the pages open read them, live, and still nothing fails.
    const canvasRead = `200 GET /v1/workshops/${id}/canvas`;
    await fay.api.post('/v1/workshops/{workshop_id}/canvas', { ...inWorkshop, body: { canvas_id: 'swot' } });
    await sdkIllustrate(fay.api, id, collect.id);
    await shown(page, '.canvas-name', 'SWOT analysis');
    await page.locator('.illustration img').and(page.locator('[alt="Illustration of Collect: sunrise.png"]')).waitFor();
    await until(() => screen.reads.includes(canvasRead), 'the screen to read the new canvas');
    expect(consolePage.reads).toContain(`200 GET /v1/workshops/${id}/steps/${collect.id}/illustration`);

    // Removed again: each page learns it from the events, without asking.
    const before = { console: consolePage.reads.length, screen: screen.reads.length };
    await fay.api.delete('/v1/workshops/{workshop_id}/canvas', inWorkshop);
    await fay.api.delete('/v1/workshops/{workshop_id}/steps/{step_id}/illustration', {
      params: { path: { workshop_id: id, step_id: collect.id } },
    });
    await shown(page, '.canvas-panel > .empty', 'This workshop has no canvas.');
    await shown(page, '.illustration .empty', 'This step has no illustration.');
    await Promise.all([consolePage.settled(), screen.settled(), patScreen.settled(), participant.settled()]);
    const asked = (reads: string[]) => reads.filter((read) => /\/(canvas|illustration)$/.test(read));
    expect(asked(consolePage.reads.slice(before.console))).toEqual([]);
    expect(asked(screen.reads.slice(before.screen))).toEqual([]);
    expect([...consolePage.problems, ...screen.problems, ...patScreen.problems, ...participant.problems]).toEqual([]);
  });
});
