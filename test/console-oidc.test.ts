import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken } from './helpers/console';
import { createConfirmedUser, seedWorkshopWith } from './helpers/factories';
import { useProvider } from './helpers/oidc-provider';
import { providerBrowser } from './helpers/provider-sign-in';

/*
 * Signing in to the console through the OpenID provider (docs/integrations.md#single-sign-on), in
 * a real chromium against a real provider: the button, the provider's own login and consent forms,
 * and back in the console signed in, where the sign-in started; or told plainly why not. A token in
 * the address that is not the end of this tab's own sign-in signs nobody in. On the Account page,
 * an account opened this way shows its sessions as opened through the provider and, having no
 * password, is deleted only after a sign-in within 10 minutes.
 *
 * Among the slowest files (about 15 s): every sign-in goes through the provider's own login and
 * consent pages in chromium and back, several times for the refused ones. (The provider's pages
 * link a web font from the internet, which chromium is told does not exist: test/helpers/chromium.ts.)
 */

const TOKEN_KEY = 'workshop-console-token';
/** Where a tab keeps the one-time value of the sign-in it started. */
const SIGN_IN_KEY = 'workshop-console-sign-in';
const REAUTHENTICATE =
  'You signed in more than 10 minutes ago, and this account has no password to confirm it is you: sign out, sign in again, and come back here within 10 minutes.';

describe.skipIf(!browserAvailable)('the console: signing in with the provider', () => {
  const op = useProvider();
  const t = useServer(() => ({
    oidc: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, name: 'Acme ID' },
  }));
  beforeAll(() => op.register(`${t.url}/v1/auth/oidc/callback`));
  const browser = useBrowser();

  /** The provider's login form as `login` (any password), then its consent form. */
  async function atProvider(page: Page, login: string): Promise<void> {
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  const uniqueLogin = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;

  it('offers the button, and signs a first-time person in with a new account', async () => {
    const login = uniqueLogin('nia');
    op.accounts.set(login, { email: `${login}@example.test`, email_verified: true, name: 'Nia Provider' });
    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(`${t.url}/`);
    const button = page.getByRole('button', { name: 'Sign in with Acme ID' });
    await button.waitFor();
    await expectAccessible(page, 'sign in, with the provider');
    await button.click();
    await atProvider(page, login);

    await page.getByRole('heading', { name: 'Your workshops' }).waitFor();
    await shown(page, '.who', 'Nia Provider');
    // The token came in the fragment, was kept, and is gone from the address and the history.
    expect(new URL(page.url()).hash).toBe('');
    expect(new URL(page.url()).pathname).toBe('/');
    const token = await page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY);
    const account = await t.request<{ email: string; confirmed_at: string | null }>('GET', '/v1/user/me', {
      token: token!,
    });
    expect(account.body.email).toBe(`${login}@example.test`);
    expect(account.body.confirmed_at).not.toBeNull();
    // The tab's one-time value served this sign-in and is gone.
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SIGN_IN_KEY)).toBeNull();
    expect(problems.errors).toEqual([]);
  });

  it('signs an existing account in where the sign-in started, linked by its verified address', async () => {
    const lin = await createConfirmedUser(t, 'Lin');
    const workshop = await seedWorkshopWith(t, lin, []);
    const login = uniqueLogin('lin');
    op.accounts.set(login, { email: lin.email, email_verified: true });
    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(`${t.url}/workshops/${workshop.id}`);
    await page.getByRole('button', { name: 'Sign in with Acme ID' }).click();
    await atProvider(page, login);

    await page.locator('body[data-status="signed-in"]').waitFor();
    await shown(page, '.who', 'Lin');
    expect(new URL(page.url()).pathname).toBe(`/workshops/${workshop.id}`);
    expect(new URL(page.url()).hash).toBe('');
    expect(problems.errors).toEqual([]);
  });

  it('says why when the state came back tampered with, or the address may not be linked', async () => {
    const login = uniqueLogin('tamper');
    op.accounts.set(login, { email: `${login}@example.test`, email_verified: true });
    const { page, problems } = await browser.newPage(LAPTOP);
    // The state is changed on its way to the provider, which hands it back as it got it. (The way
    // back is a redirect the browser follows on its own, where requests cannot be caught.)
    const start = `${t.url}/v1/auth/oidc/start?*`;
    await page.route(start, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      const location = new URL(response.headers()['location']!);
      location.searchParams.set('state', `${location.searchParams.get('state')}x`);
      await route.fulfill({ response, headers: { ...response.headers(), location: location.href } });
    });
    await page.goto(`${t.url}/`);
    await page.getByRole('button', { name: 'Sign in with Acme ID' }).click();
    await atProvider(page, login);
    await shown(page, '[role="alert"]', /could not be finished/);
    await page.locator('body[data-status="signed-out"]').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    await expectAccessible(page, 'a refused sign-in');
    await page.unroute(start);

    // An account has the address, which the provider did not verify: not linked, and said so.
    const vera = await createConfirmedUser(t, 'Vera');
    const other = uniqueLogin('vera');
    op.accounts.set(other, { email: vera.email, email_verified: false });
    const second = await browser.newPage(LAPTOP);
    await second.page.goto(`${t.url}/`);
    await second.page.getByRole('button', { name: 'Sign in with Acme ID' }).click();
    await atProvider(second.page, other);
    await shown(second.page, '[role="alert"]', /exists already/);
    expect(await second.page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY)).toBeNull();
    expect([...problems.errors, ...second.problems.errors]).toEqual([]);
  });

  /** Signs `page` in through the provider as `login`, from the sign-in form of `/`: the tab's token. */
  async function signInThroughProvider(page: Page, login: string): Promise<string> {
    await page.goto(`${t.url}/`);
    await page.getByRole('button', { name: 'Sign in with Acme ID' }).click();
    await atProvider(page, login);
    await page.locator('body[data-status="signed-in"]').waitFor();
    return (await page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY))!;
  }

  it('shows the sessions opened through the provider, and deletes the account without a password only after a recent sign-in', async () => {
    const login = uniqueLogin('pia');
    const account = { email: `${login}@example.test`, email_verified: true, name: 'Pia Provider' };
    op.accounts.set(login, account);
    const { page, problems } = await browser.newPage(LAPTOP);
    const first = await signInThroughProvider(page, login);
    // Another sign-in through the provider, from elsewhere (no browser: `node` as its user agent).
    const elsewhere = (await providerBrowser(t, op).signIn(login, account)).get('token')!;
    expect(elsewhere).toBeTruthy();
    const me = await t.request<{ id: string }>('GET', '/v1/user/me', { token: first });
    const status = async (token: string) => (await t.request('GET', '/v1/user/me', { token })).status;

    await page.goto(`${t.url}/account`);
    const sessions = page.getByRole('region', { name: 'Sessions' });
    const rows = sessions.locator('.session-row');
    await expect.poll(() => rows.count()).toBe(2);
    const current = rows.filter({ hasText: 'This browser' });
    expect(await current.locator('dd').first().textContent()).toMatch(/^through the provider, /);
    const other = rows.filter({ hasNotText: 'This browser' });
    expect(await other.locator('dd').first().textContent()).toMatch(/^through the provider, /);
    expect(await other.locator('.session-agent').textContent()).toBe('node');
    await expectAccessible(page, 'sessions opened through the provider');

    // Signed in just now: no password asked; but the sign-in ages past 10 minutes before the click.
    const zone = page.getByRole('region', { name: 'Delete the account' });
    await zone.getByRole('button', { name: 'Delete your account…' }).click();
    const asked = zone.getByRole('group', { name: 'Delete your account?' });
    await asked.waitFor();
    expect(await asked.getByLabel('Your password').count()).toBe(0);
    const longAgo = new Date(Date.now() - 11 * 60_000).toISOString();
    await t.write((tx, { authTokens }) =>
      tx.update(authTokens).set({ createdAt: longAgo }).where(eq(authTokens.userId, me.body.id)),
    );
    await asked.getByRole('button', { name: 'Delete my account for good' }).click();
    await shown(page, '.account-deletion .problem', REAUTHENTICATE);
    expect(await status(first)).toBe(200);

    // Asked again, the page knows beforehand: it says so, and offers no deletion.
    await asked.getByRole('button', { name: 'Cancel' }).click();
    await zone.getByRole('button', { name: 'Delete your account…' }).click();
    await shown(page, '.account-deletion .notice', new RegExp(`^${REAUTHENTICATE.replace(/[.?]/g, '\\$&')}`));
    expect(await asked.getByRole('button', { name: 'Delete my account for good' }).isDisabled()).toBe(true);
    await expectAccessible(page, 'deletion waiting for a new sign-in');
    expect(await status(first)).toBe(200);

    // Signed in again through the provider, in another browser: the deletion goes through without a password.
    const again = await browser.newPage(LAPTOP);
    const fresh = await signInThroughProvider(again.page, login);
    await again.page.goto(`${t.url}/account`);
    const zoneAgain = again.page.getByRole('region', { name: 'Delete the account' });
    await zoneAgain.getByRole('button', { name: 'Delete your account…' }).click();
    await shown(again.page, '.deletion-counts', /^Also deleted: 3 sessions,/);
    expect(await zoneAgain.getByLabel('Your password').count()).toBe(0);
    await zoneAgain.getByRole('button', { name: 'Delete my account for good' }).click();
    await again.page.locator('body[data-status="signed-out"]').waitFor();
    await shown(again.page, '.notice', /^Your account is deleted, and you are signed out everywhere\./);
    for (const token of [first, elsewhere, fresh]) expect(await status(token)).toBe(401);
    expect([...problems.errors, ...again.problems.errors]).toEqual([]);
  });

  it("stays signed in as its person when a link carries someone else's token, which leaves the address", async () => {
    const vic = await createConfirmedUser(t, 'Vic');
    const mal = await createConfirmedUser(t, 'Mal');
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, vic.token, '/');
    // The link opens in a new tab of the same browser, as a click on it does.
    const linked = await page.context().newPage();
    await linked.goto(`${t.url}/#token=${encodeURIComponent(mal.token)}`);
    await linked.locator('body[data-status="signed-in"]').waitFor();
    expect(await linked.textContent('.who')).toBe('Vic');
    expect(new URL(linked.url()).hash).toBe('');
    expect(await linked.evaluate((key) => localStorage.getItem(key), TOKEN_KEY)).toBe(vic.token);
    // Vic's own session was neither replaced nor dropped.
    expect((await t.request('GET', '/v1/user/me', { token: vic.token })).status).toBe(200);
    expect(problems.errors).toEqual([]);
  });

  it('signs nobody in with the end of a sign-in another tab started, sent as a link', async () => {
    // Mal signs in at the provider in a browser of their own, and keeps the address the callback sent it to.
    const login = uniqueLogin('mal');
    op.accounts.set(login, { email: `${login}@example.test`, email_verified: true, name: 'Mal Provider' });
    const mal = await browser.newPage(LAPTOP);
    await mal.page.addInitScript(() => {
      if (/[#&]token=/.test(location.hash)) sessionStorage.setItem('arrived-at', location.href);
    });
    const start = new URLSearchParams({ return_to: '/', client_state: randomBytes(32).toString('base64url') });
    await mal.page.goto(`${t.url}/v1/auth/oidc/start?${start}`);
    await atProvider(mal.page, login);
    await mal.page.waitForFunction(() => sessionStorage.getItem('arrived-at') !== null);
    const link = (await mal.page.evaluate(() => sessionStorage.getItem('arrived-at')))!;
    expect(new URL(link).hash).toMatch(/^#token=/);

    // Opened in someone else's tab, signed out: it stays signed out, keeps nothing, and the token leaves the address.
    const { page, problems } = await browser.newPage(LAPTOP);
    const settled = async () => {
      await page.locator('body[data-status="signed-out"], body[data-status="signed-in"]').waitFor();
      return page.locator('body').getAttribute('data-status');
    };
    await page.goto(link);
    expect(await settled()).toBe('signed-out');
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY)).toBeNull();

    // Nor in a tab whose own sign-in is under way: the value it kept is another, and now used up.
    await page.evaluate((key) => sessionStorage.setItem(key, 'a'.repeat(64)), SIGN_IN_KEY);
    await page.goto('about:blank');
    await page.goto(link);
    expect(await settled()).toBe('signed-out');
    expect(await page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY)).toBeNull();
    expect(await page.evaluate((key) => sessionStorage.getItem(key), SIGN_IN_KEY)).toBeNull();
    // The link was a real sign-in's end, with the value of the tab that started it.
    expect(new URL(link).hash).toMatch(/&client_state=/);
    expect([...problems.errors, ...mal.problems.errors]).toEqual([]);
  });
});
