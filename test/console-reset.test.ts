import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, mailedLink, openConsoleWithToken, PHONE } from './helpers/console';
import { createConfirmedUser } from './helpers/factories';
import { SDK_PASSWORD, sdkUser } from './helpers/sdk';

/*
 * A forgotten password in the console (docs/pages.md#a-forgotten-password): the sign-in form asks
 * for a link, the mailed link's page sets a new password and signs the tab in; and an address
 * change's link on the confirmation page.
 */

const NEW_PASSWORD = 'a brand new password';
const SENT =
  /^If an account has the address \S+, a mail with a link to choose a new password is on its way\. The link works for 30 minutes/;
const DEAD = 'This link no longer works: it was used already, a newer one was asked for, or its 30 minutes are over.';

describe.skipIf(!browserAvailable)('the console: a forgotten password', () => {
  const t = useServer();
  const browser = useBrowser();

  const login = async (email: string, password: string) =>
    (await t.request('POST', '/v1/auth/login', { body: { email, password } })).status;

  /** Asks for a reset link from the sign-in form of `/`. */
  async function askForLink(page: import('playwright-core').Page, email: string, what: string) {
    await page.goto(`${t.url}/`);
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    const form = page.getByRole('form', { name: 'Reset your password' });
    // The address is where typing goes on.
    await expect
      .poll(() => form.getByLabel('E-mail address').evaluate((input) => input === document.activeElement))
      .toBe(true);
    await expectAccessible(page, what);
    await form.getByLabel('E-mail address').fill(email);
    await form.getByRole('button', { name: 'Mail me a link' }).click();
    await shown(page, 'form .done', SENT);
  }

  it('asks for a link from the sign-in form, sets a new password from it, signs in, and the old password stops working', async () => {
    const { api, email } = await sdkUser(t, 'Noor');
    const { page, problems } = await browser.newPage(LAPTOP);
    await askForLink(page, email, 'asking for a reset link');
    await expectAccessible(page, 'a reset link asked for');

    await page.goto(await mailedLink(t, email, '/reset?token='));
    // The token is taken out of the address at once.
    await page.getByRole('form', { name: 'Choose a new password' }).waitFor();
    expect(new URL(page.url()).search).toBe('');
    expect(new URL(page.url()).pathname).toBe('/reset');
    await shown(page, '.hint', /^At least 8 characters\./);
    await expectAccessible(page, 'choosing a new password');

    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill('a brand new pasword');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await shown(page, '.problem', 'The two passwords differ: type the same one twice.');
    expect(await page.getByLabel('New password again').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('New password again').fill('short');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await shown(page, '.problem', 'The password needs at least 8 characters.');
    // Neither was sent: the link still works.
    expect(await login(email, SDK_PASSWORD)).toBe(200);

    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await shown(page, '.done', 'Your new password is set, and you are signed in.');
    await shown(page, 'main', /Every other device and browser that was signed in to your account has been signed out/);
    await page.locator('body[data-status="signed-in"]').waitFor();
    await shown(page, '.bar .who', 'Noor');
    await expectAccessible(page, 'the new password set');

    expect(await login(email, SDK_PASSWORD)).toBe(401);
    expect(await login(email, NEW_PASSWORD)).toBe(200);
    // The session the account had before is signed out.
    await expect(api.get('/v1/user/me')).rejects.toMatchObject({ status: 401 });
    // The tab's new session works on: its workshops open.
    await page.getByRole('link', { name: 'Go to your workshops' }).click();
    await page.getByRole('heading', { name: 'Your workshops' }).waitFor();
    expect(problems.errors).toEqual([]);
  });

  it('says a used link no longer works, on a phone too, and asks for a new one from the same page', async () => {
    const { email } = await sdkUser(t, 'Omar');
    const phone = await browser.newPage(PHONE);
    await askForLink(phone.page, email, 'asking for a reset link, on a phone');
    const link = await mailedLink(t, email, '/reset?token=');
    await phone.page.goto(link);
    await phone.page.getByRole('form', { name: 'Choose a new password' }).waitFor();
    await expectAccessible(phone.page, 'choosing a new password, on a phone');
    await phone.page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await phone.page.getByLabel('New password again').fill(NEW_PASSWORD);
    await phone.page.getByRole('button', { name: 'Set the password' }).click();
    await shown(phone.page, '.done', 'Your new password is set, and you are signed in.');
    await expectAccessible(phone.page, 'the new password set, on a phone');

    // The same link again, in this tab and in another browser.
    await phone.page.goto(link);
    await phone.page.getByRole('form', { name: 'Choose a new password' }).waitFor();
    await phone.page.getByLabel('New password', { exact: true }).fill('yet another password');
    await phone.page.getByLabel('New password again').fill('yet another password');
    await phone.page.getByRole('button', { name: 'Set the password' }).click();
    await shown(phone.page, '.problem', DEAD);
    await expectAccessible(phone.page, 'a used reset link, on a phone');

    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('yet another password');
    await page.getByLabel('New password again').fill('yet another password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await shown(page, '.problem', DEAD);
    await expectAccessible(page, 'a used reset link');
    const again = page.getByRole('form', { name: 'Ask for a new link' });
    await again.getByLabel('E-mail address').fill(email);
    await again.getByRole('button', { name: 'Mail me a link' }).click();
    await shown(page, 'form .done', SENT);
    expect(await mailedLink(t, email, '/reset?token=')).not.toBe(link);
    expect(await login(email, NEW_PASSWORD)).toBe(200);
    expect(problems.errors).toEqual([]);
    expect(phone.problems.errors).toEqual([]);
  });

  it('says how long to wait when too many links were asked for the address', async () => {
    const { email } = await sdkUser(t, 'Pia');
    for (let i = 0; i < 3; i++)
      expect((await t.request('POST', '/v1/auth/password_reset', { body: { email } })).status).toBe(204);
    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(`${t.url}/`);
    await page.getByRole('button', { name: 'Forgot your password?' }).click();
    await page.getByLabel('E-mail address').fill(email);
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await shown(
      page,
      '.problem',
      /^Too many links were asked for this address, or from this network\. Wait \d+ minutes and ask again/,
    );
    expect(await page.locator('form .done').textContent()).toBe('');
    // Back to the sign-in form, the address kept.
    await page.getByRole('button', { name: 'Back to sign in' }).click();
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    expect(problems.errors).toEqual([]);
  });

  it('says in words that an address change’s new address was taken by another account before its link was used', async () => {
    const ada = await createConfirmedUser(t, 'Ada');
    const taken = `taken-${process.pid}-${Date.now()}@example.test`;
    const change = await t.request('PUT', '/v1/user/me/email', {
      token: ada.token,
      body: { email: taken, password: SDK_PASSWORD },
    });
    expect(change.status, JSON.stringify(change.body)).toBe(202);
    const link = await mailedLink(t, taken, '/confirm?token=');
    // Someone signs up with the new address before Ada opens the link.
    const other = await t.request('POST', '/v1/auth/signup', {
      body: { email: taken, password: SDK_PASSWORD, name: 'Other' },
    });
    expect(other.status).toBe(201);

    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.token, new URL(link).pathname + new URL(link).search);
    await page.getByRole('button', { name: 'Use the link with my account' }).click();
    await shown(
      page,
      '.problem',
      /another account took it after the change was asked for\. Your account keeps the address it had\./,
    );
    await expectAccessible(page, 'an address change refused');
    const me = await t.request<{ email: string }>('GET', '/v1/user/me', { token: ada.token });
    expect(me.body.email).toBe(ada.email);
    expect(problems.errors).toEqual([]);
  });

  it('uses an address change’s link signed in, and the account takes the new address', async () => {
    const bo = await createConfirmedUser(t, 'Bo');
    const moved = `moved-${process.pid}-${Date.now()}@example.test`;
    await t.request('PUT', '/v1/user/me/email', { token: bo.token, body: { email: moved, password: SDK_PASSWORD } });
    const link = await mailedLink(t, moved, '/confirm?token=');
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, bo.token, new URL(link).pathname + new URL(link).search);
    await expectAccessible(page, 'an address change’s link, signed in, on a phone');
    await page.getByRole('button', { name: 'Use the link with my account' }).click();
    await shown(page, '.done', 'Your address is confirmed.');
    const me = await t.request<{ email: string }>('GET', '/v1/user/me', { token: bo.token });
    expect(me.body.email).toBe(moved);
    expect(problems.errors).toEqual([]);
  });

  it('serves the reset page at /reset under the pages’ policy', async () => {
    const res = await fetch(`${t.url}/reset?token=abc`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('id="console"');
    // Not an API route: the API description leaves it out.
    const spec = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths)).not.toContain('/reset');
  });
});
