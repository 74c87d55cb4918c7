import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

/**
 * Browser tests drive the system's chromium (Debian's package; CI installs it), never a
 * downloaded one. On a machine without it they are skipped with a message, unless
 * REQUIRE_BROWSER=1, where a missing chromium fails the run instead.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const browserAvailable = existsSync(CHROMIUM);

if (!browserAvailable) {
  if (process.env.REQUIRE_BROWSER === '1')
    throw new Error(`REQUIRE_BROWSER=1 but there is no chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  console.warn(
    `No chromium at ${CHROMIUM}: skipping the browser tests. Install it with \`apt-get install -y chromium\` to run them.`,
  );
}

/** Headless, and quiet: no calls home, no updates, no first-run pages. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/** What went wrong inside a page: uncaught exceptions, and content the page's policy refused. */
export interface PageProblems {
  errors: string[];
}

export interface TestBrowser {
  /**
   * A page in a context of its own (its own session storage), closed after the test; `problems`
   * collects its uncaught exceptions and refused content (`Refused to …` from the policy).
   */
  newPage(options?: BrowserContextOptions): Promise<{ page: Page; problems: PageProblems }>;
}

/** One browser for the file (started in `beforeAll`, closed in `afterAll`); its contexts closed after each test. */
export function useBrowser(): TestBrowser {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async newPage(options = {}) {
      if (!browser) throw new Error('the browser is started in beforeAll: use it inside a test or hook');
      const context = await browser.newContext(options);
      contexts.push(context);
      const page = await context.newPage();
      const problems: PageProblems = { errors: [] };
      page.on('pageerror', (err) => problems.errors.push(`uncaught: ${err.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && message.text().startsWith('Refused to')) problems.errors.push(message.text());
      });
      return { page, problems };
    },
  };
}

/**
 * Opens a workshop's screen signed in as `token`, kept in the tab as the screen's own sign-in form
 * keeps it (no link can sign a screen in: the console lends its token to the tab it opens), and
 * waits until it is live. The token is put in place from a light page of the same origin.
 */
export async function openScreen(page: Page, baseUrl: string, workshopId: string, token: string): Promise<void> {
  await page.goto(`${baseUrl}/health`);
  await page.evaluate((token) => sessionStorage.setItem('workshop-screen-token', token), token);
  await page.goto(`${baseUrl}/screen/${workshopId}`);
  await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
}

/** What the issues allow between a change and a page showing it: `timeToShow` holds a change to it. */
export const WITHIN_MS = 1_000;
/**
 * How long a test waits for a page to show something it does not time: long enough for a busy
 * 2-core machine's pauses, so only something that never shows fails.
 */
export const SHOWS_WITHIN_MS = 5_000;

/** Waits until the element `selector` exists, is not hidden, and its text is `text` (checked at every frame). */
export function shown(
  page: Page,
  selector: string,
  text: string | RegExp,
  timeout = SHOWS_WITHIN_MS,
): Promise<unknown> {
  const [source, flags] = typeof text === 'string' ? [null, null] : [text.source, text.flags];
  return page.waitForFunction(
    ({ selector, text, source, flags }) => {
      const node = document.querySelector<HTMLElement>(selector);
      if (!node || node.closest('[hidden]')) return false;
      const content = node.textContent ?? '';
      return source === null ? content === text : new RegExp(source, flags!).test(content);
    },
    { selector, text: typeof text === 'string' ? text : '', source, flags },
    { timeout, polling: 'raf' },
  );
}

/** How long `change` takes to show on the page (the REST call included); fails past `limitMs`. */
export async function timeToShow(
  change: () => Promise<unknown>,
  seen: () => Promise<unknown>,
  limitMs = WITHIN_MS,
): Promise<number> {
  const started = performance.now();
  await change();
  await seen();
  const took = Math.round(performance.now() - started);
  expect(took).toBeLessThan(limitMs);
  return took;
}
