import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { TestServer } from './server';

/*
 * The facilitator console (`/`, docs/pages.md#the-console) as a person drives it: signing up
 * through the forms, following the links the service mails, and checking each view with axe-core.
 */

export const LAPTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let people = 0;
/** A new account made through the console's form; resolves on the workshops page, signed in. */
export async function signUpInConsole(page: Page, baseUrl: string, name: string): Promise<{ email: string }> {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${process.pid}-${++people}-${Date.now()}@example.test`;
  await page.goto(`${baseUrl}/`);
  await page.getByRole('button', { name: 'Create an account' }).click();
  await page.getByLabel('Your name').fill(name);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Your workshops' }).waitFor();
  return { email };
}

/** Signs in through the console's form; resolves on the workshops page. */
export async function signInToConsole(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).last().click();
  await page.getByRole('heading', { name: 'Your workshops' }).waitFor();
}

/** The link of the last mail to `to` whose text holds `path` (`/confirm?token=`, `/invitations/`). */
export async function mailedLink(t: Pick<TestServer, 'rows'>, to: string, path: string): Promise<string> {
  const mails = await t.rows<{ text: string }>(sql`select text from outbox where "to" = ${to} order by rowid`);
  const link = mails
    .map((mail) => new RegExp(`https?://\\S+${path.replace(/[?]/g, '\\?')}\\S*`).exec(mail.text)?.[0])
    .filter(Boolean)
    .at(-1);
  expect(link, `no mail to ${to} with ${path}`).toBeDefined();
  return link!;
}

/** The workshops page's form to create one, opened. */
export async function createForm(page: Page) {
  const form = page.getByRole('form', { name: 'Create a workshop' });
  // The form opens by itself once an empty list has arrived: wait for the list before deciding.
  await page.locator('.workshop-row, .home .empty').first().waitFor();
  if (!(await form.isVisible())) await page.getByText('Create a workshop', { exact: true }).click();
  return form;
}

/** Creates a blank workshop from the workshops page; resolves on its console, with its id. */
export async function createBlankWorkshop(page: Page, title: string): Promise<string> {
  const form = await createForm(page);
  await form.getByLabel('Blank').check();
  await form.getByLabel('Title', { exact: true }).fill(title);
  await form.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
}

/**
 * No serious or critical axe-core violation on the page as it stands (`what` names the view in the
 * failure). Run in the page alone (axe's legacy mode): the pages have no frames, and gathering
 * frames' results opens another page each time (a third slower over a console file). `within`
 * (a CSS selector) checks only that part, for a change to a page already checked whole; `{ except }`
 * checks the page but for what the selector matches: the middle of a long list whose first and
 * last entries are the same markup (axe takes seconds per thousand elements).
 */
export async function expectAccessible(page: Page, what: string, within?: string | { except: string }): Promise<void> {
  const axe = new AxeBuilder({ page }).setLegacyMode(true);
  if (typeof within === 'string') axe.include(within);
  else if (within) axe.exclude(within.except);
  const { violations } = await axe.analyze();
  const grave = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
  expect(grave, `axe-core on ${what}`).toEqual([]);
}

/**
 * Opens `path` of the console signed in with `token` (an account made through the SDK, when the
 * test is not about signing in): the token is put where the console keeps it, then the page loads.
 */
export async function openConsoleWithToken(page: Page, baseUrl: string, token: string, path: string): Promise<void> {
  // Any page of the origin holds its storage: /health, a few bytes, costs a tenth of the console's own.
  await page.goto(`${baseUrl}/health`);
  await page.evaluate((token) => localStorage.setItem('workshop-console-token', token), token);
  await page.goto(`${baseUrl}${path}`);
  await page.locator('body[data-status="signed-in"]').waitFor();
}
