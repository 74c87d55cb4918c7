import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { launchBrowser } from './chromium';

export { browserAvailable, openScreen } from './chromium';

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

/**
 * The worker's browser: test files run one after another in a worker that keeps its modules
 * (`isolate: false` in vitest.config.ts), so the browser started for the first file serves the
 * next ones, each test in contexts of its own, instead of a chromium started and stopped per file.
 * It ends with the worker (playwright closes what it launched when its process exits).
 */
let workerBrowser: Promise<Browser> | undefined;

async function browserOfWorker(): Promise<Browser> {
  const running = await workerBrowser;
  if (running?.isConnected()) return running;
  workerBrowser = launchBrowser();
  return workerBrowser;
}

/** The worker's browser for the file's tests (`browserOfWorker`); their contexts closed after each test. */
export function useBrowser(): TestBrowser {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await browserOfWorker();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    // A context a test left open (it failed before its afterEach ran) does not outlive the file.
    await Promise.all(browser?.contexts().map((context) => context.close()) ?? []);
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

/** The languages of the messages files `page` fetches from now on for the page `pageName` (`participant`, `screen`). */
export function messagesFetched(page: Page, pageName: string): string[] {
  const fetched: string[] = [];
  const file = new RegExp(`/${pageName}/assets/messages-(.+)-[A-Z0-9]+\\.js$`);
  page.on('request', (request) => {
    const language = file.exec(request.url())?.[1];
    if (language) fetched.push(language);
  });
  return fetched;
}

/** The page's `<html lang dir>`. */
export const htmlLanguage = (page: Page) =>
  page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }));
