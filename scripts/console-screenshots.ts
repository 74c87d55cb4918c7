/**
 * The console's pictures in `docs/` (docs/pages.md#the-console), taken by
 * `npm run screenshot` on the demo workshop of `screenshot.ts`: the workshops page, the run, agenda
 * and board tabs at 1280×800, and the run tab on a phone (390×844). The facilitator's token is put
 * where the console keeps it, as signing in would.
 */
import { join } from 'node:path';
import type { Browser, BrowserContextOptions } from 'playwright-core';

const LAPTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

const VIEWS: Array<{ file: string; path: (id: string) => string; ready: string; size: BrowserContextOptions }> = [
  { file: 'console-workshops.png', path: () => '/', ready: '.workshop-row', size: LAPTOP },
  { file: 'console-run.png', path: (id) => `/workshops/${id}?tab=run`, ready: '.tab[data-tab="run"] *', size: LAPTOP },
  {
    file: 'console-agenda.png',
    path: (id) => `/workshops/${id}?tab=agenda`,
    ready: '.tab[data-tab="agenda"] *',
    size: LAPTOP,
  },
  {
    file: 'console-board.png',
    path: (id) => `/workshops/${id}?tab=board`,
    ready: '.tab[data-tab="board"] *',
    size: LAPTOP,
  },
  {
    file: 'console-run-phone.png',
    path: (id) => `/workshops/${id}?tab=run`,
    ready: '.tab[data-tab="run"] *',
    size: PHONE,
  },
];

/** Writes each view of the demo workshop's console into `docs`; resolves with the files written. */
export async function photographConsole(
  browser: Browser,
  baseUrl: string,
  demo: { workshopId: string; facilitatorToken: string },
  docs: string,
): Promise<string[]> {
  const written: string[] = [];
  for (const view of VIEWS) {
    const context = await browser.newContext(view.size);
    await context.addInitScript(
      (token) => localStorage.setItem('workshop-console-token', token),
      demo.facilitatorToken,
    );
    const page = await context.newPage();
    await page.goto(`${baseUrl}${view.path(demo.workshopId)}`);
    await page.locator(view.ready).first().waitFor({ timeout: 10_000 });
    // Whatever the view reads after its first frame (the agenda, participation, the access code) settles.
    await page.waitForLoadState('networkidle');
    const out = join(docs, view.file);
    await page.screenshot({ path: out });
    written.push(out);
    await context.close();
  }
  return written;
}
