import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP } from './helpers/console';
import { createConfirmedUser, seedWorkshopWith } from './helpers/factories';
import { useProvider } from './helpers/oidc-provider';

/*
 * Signing in to the console through the OpenID provider (docs/integrations.md#single-sign-on), in
 * a real chromium against a real provider: the button, the provider's own login and consent forms,
 * and back in the console signed in, where the sign-in started; or told plainly why not.
 */

const TOKEN_KEY = 'workshop-console-token';

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
    const button = page.getByRole('link', { name: 'Sign in with Acme ID' });
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
    expect(problems.errors).toEqual([]);
  });

  it('signs an existing account in where the sign-in started, linked by its verified address', async () => {
    const lin = await createConfirmedUser(t, 'Lin');
    const workshop = await seedWorkshopWith(t, lin, []);
    const login = uniqueLogin('lin');
    op.accounts.set(login, { email: lin.email, email_verified: true });
    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(`${t.url}/workshops/${workshop.id}`);
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
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
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
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
    await second.page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await atProvider(second.page, other);
    await shown(second.page, '[role="alert"]', /exists already/);
    expect(await second.page.evaluate((key) => localStorage.getItem(key), TOKEN_KEY)).toBeNull();
    expect([...problems.errors, ...second.problems.errors]).toEqual([]);
  });
});
