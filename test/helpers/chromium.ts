import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/*
 * The system's chromium, apart from the test runner: the browser tests (helpers/browser.ts) and
 * the screenshots (`npm run screenshot`, which runs outside vitest) both launch it from here.
 */

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

/**
 * Headless, and quiet: no calls home, no updates, no first-run pages. Pages reach this machine
 * only: any other host name fails at once, as if it did not exist. (The test OpenID provider's
 * login form links a web font; without this its page waited 5 s for a host it could not reach,
 * and a test could lean on the internet without anyone noticing.)
 */
const CHROMIUM_ARGS = [
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
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
