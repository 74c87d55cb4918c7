import { readFile } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, mailedLink, openConsoleWithToken, PHONE } from './helpers/console';
import { confirmAddress, createConfirmedUser, createUser, pngImage, type TestUser } from './helpers/factories';
import { SDK_PASSWORD, sdkUser, sdkWorkshop } from './helpers/sdk';
import { linkInMail, mailText, startSmtp, type TestSmtp } from './helpers/smtp';
import { until } from './helpers/wait';

/*
 * The console's Account page (`/account`, docs/pages.md#your-account) in a real chromium, against
 * the real server and a real SMTP server: each section does its job end to end, and what it did
 * is checked through the API (the name saved, the address change's mail received, the old password
 * refused, an ended session and a revoked token answering 401).
 *
 * Among the slowest files (about 15 to 25 s): eleven views, each opened signed in, used through
 * its forms and checked by axe-core, several at a laptop's and a phone's width, with mails read
 * back from the SMTP server.
 */

const NEW_PASSWORD = 'a brand new password';
const ADDRESS_FORM = 'form[aria-label="Change your address"]';
const PASSWORD_FORM = 'form[aria-label="Change your password"]';
const CLIPBOARD = { permissions: ['clipboard-read', 'clipboard-write'] };

describe.skipIf(!browserAvailable)('the console: your account', () => {
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  const t = useServer(() => ({ smtpUrl: smtp.url }));
  const browser = useBrowser();

  const status = async (token: string, path = '/v1/user/me') => (await t.request('GET', path, { token })).status;
  const login = (email: string, password: string, userAgent = 'Mozilla/5.0 (Windows NT 10.0) Firefox/140.0') =>
    t.request<{ token: string }>('POST', '/v1/auth/login', {
      body: { email, password },
      headers: { 'user-agent': userAgent },
    });
  const mailsTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));

  /** The account page, opened from the header's link as a person would. */
  async function openAccount(page: Page, user: TestUser) {
    await openConsoleWithToken(page, t.url, user.token, '/');
    await page.getByRole('link', { name: `${user.name} (your account)` }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/account');
  }
  const section = (page: Page, name: string) => page.getByRole('region', { name });

  it('saves the name and the avatar, and says so', async () => {
    const user = await createConfirmedUser(t, 'Ada');
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAccount(page, user);
    for (const name of ['Profile', 'Address', 'Password', 'Sessions', 'Personal API tokens', 'Your data'])
      await section(page, name).waitFor();
    await section(page, 'Delete the account').waitFor();
    await expectAccessible(page, 'the account page');

    const profile = section(page, 'Profile');
    await profile.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await shown(page, '.account-page .save-row .hint', 'Not saved yet.');
    await profile.getByRole('button', { name: 'Save the name' }).click();
    await shown(page, '.account-page .save-row .done', 'Saved.');
    await shown(page, '.bar .who', 'Ada Lovelace');
    expect((await t.request<{ name: string }>('GET', '/v1/user/me', { token: user.token })).body.name).toBe(
      'Ada Lovelace',
    );

    await profile.getByLabel('Choose an avatar').setInputFiles({
      name: 'me.png',
      mimeType: 'image/png',
      buffer: await pngImage(600, 600),
    });
    await shown(page, '.account-avatar .done', 'Avatar saved.');
    const avatar = (await t.request<{ avatar_url: string | null }>('GET', '/v1/user/me', { token: user.token })).body
      .avatar_url;
    expect(avatar).toMatch(/^http/);
    expect(await profile.getByRole('img', { name: 'Your avatar' }).getAttribute('src')).toBe(avatar);
    await expect.poll(() => profile.getByRole('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(512);
    // Removing it asks first, saying what goes; cancelled, the avatar stays.
    await profile.getByRole('button', { name: 'Remove the avatar' }).click();
    const asked = profile.getByRole('group', {
      name: 'Remove your avatar? The image is deleted from the service, and your name is shown without a picture.',
    });
    await asked.waitFor();
    await expectAccessible(page, 'removing the avatar, asked first');
    await asked.getByRole('button', { name: 'Cancel' }).click();
    await asked.waitFor({ state: 'detached' });
    expect(
      (await t.request<{ avatar_url: string | null }>('GET', '/v1/user/me', { token: user.token })).body.avatar_url,
    ).toBe(avatar);
    await profile.getByRole('button', { name: 'Remove the avatar' }).click();
    await asked.getByRole('button', { name: 'Remove avatar' }).click();
    await shown(page, '.account-avatar .done', 'Avatar removed.');
    expect(
      (await t.request<{ avatar_url: string | null }>('GET', '/v1/user/me', { token: user.token })).body.avatar_url,
    ).toBeNull();
    expect(problems.errors).toEqual([]);
  });

  it('changes the address: refusals said in words, then a link mailed to the new address', async () => {
    const user = await createConfirmedUser(t, 'Bo');
    const other = await createUser(t, 'Taken');
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAccount(page, user);
    const address = section(page, 'Address');
    await shown(page, '.account-email', user.email);
    await shown(page, '.account-confirmed', /^Confirmed on /);
    const form = address.getByRole('form', { name: 'Change your address' });

    await form.getByLabel('New address').fill(other.email);
    await form.getByLabel('Your password').fill(SDK_PASSWORD);
    await form.getByRole('button', { name: 'Change the address' }).click();
    await shown(
      page,
      ADDRESS_FORM + ' .problem',
      `Another account has the address ${other.email} already; yours stays as it is.`,
    );
    expect(await form.getByLabel('New address').getAttribute('aria-invalid')).toBe('true');

    const moved = `bo-moved-${process.pid}-${Date.now()}@example.test`;
    await form.getByLabel('New address').fill(moved);
    await form.getByLabel('Your password').fill('not my password');
    await form.getByRole('button', { name: 'Change the address' }).click();
    await shown(page, ADDRESS_FORM + ' .problem', 'That password is wrong: nothing was changed.');
    expect(await form.getByLabel('Your password').getAttribute('aria-invalid')).toBe('true');

    await form.getByLabel('Your password').fill(SDK_PASSWORD);
    await form.getByRole('button', { name: 'Change the address' }).click();
    await shown(
      page,
      ADDRESS_FORM + ' .done',
      `A link to confirm ${moved} went to that address. Your address stays ${user.email} until the link is opened; a notice went there too.`,
    );
    await expectAccessible(page, 'an address change asked for');
    await until(() => mailsTo(moved).length === 1, 'the link at the SMTP server');
    expect(mailText(mailsTo(moved)[0]!)).toMatch(/\/confirm\?token=/);
    await until(() => mailsTo(user.email).length > 0, 'the notice to the old address at the SMTP server');
    // Nothing changes until the link is used; then the page shows the new address, confirmed.
    expect((await t.request<{ email: string }>('GET', '/v1/user/me', { token: user.token })).body.email).toBe(
      user.email,
    );
    const link = await mailedLink(t, moved, '/confirm?token=');
    await page.goto(link);
    await page.getByRole('button', { name: 'Use the link with my account' }).click();
    await shown(page, '.done', 'Your address is confirmed.');
    await page.goto(`${t.url}/account`);
    await shown(page, '.account-email', moved);
    expect(problems.errors).toEqual([]);
  });

  it('changes the password: the other sessions end, the old password fails, this browser stays', async () => {
    const user = await createConfirmedUser(t, 'Cy');
    const elsewhere = (await login(user.email, SDK_PASSWORD)).body.token;
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAccount(page, user);
    const form = section(page, 'Password').getByRole('form', { name: 'Change your password' });
    await shown(page, PASSWORD_FORM + ' .hint', /^At least 8 characters\./);

    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await form.getByLabel('New password again').fill(NEW_PASSWORD);
    await form.getByRole('button', { name: 'Change the password' }).click();
    await shown(page, PASSWORD_FORM + ' .problem', 'That is not your current password: nothing was changed.');
    expect(await form.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('New password again').fill('something else entirely');
    await form.getByRole('button', { name: 'Change the password' }).click();
    await shown(page, PASSWORD_FORM + ' .problem', 'The two new passwords differ: type the same one twice.');

    await form.getByLabel('Current password').fill(SDK_PASSWORD);
    await form.getByLabel('New password again').fill(NEW_PASSWORD);
    // From the keyboard: Enter in the last field sends the form.
    await form.getByLabel('New password again').press('Enter');
    await shown(
      page,
      PASSWORD_FORM + ' .done',
      'Your password is changed. Every other device and browser signed in to your account was signed out; this one stays signed in.',
    );
    expect((await login(user.email, SDK_PASSWORD)).status).toBe(401);
    expect((await login(user.email, NEW_PASSWORD)).status).toBe(200);
    expect(await status(elsewhere)).toBe(401);
    expect(await status(user.token)).toBe(200);
    expect(problems.errors).toEqual([]);
  });

  it('tells an account without a password to set one with a reset link, and mails it', async () => {
    const user = await createConfirmedUser(t, 'Dee');
    await t.write((tx, { users }) => tx.update(users).set({ passwordHash: null }).where(eq(users.id, user.id)));
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAccount(page, user);
    const password = section(page, 'Password');
    // The deletion's preview (`password_required`) tells the page there is no password.
    await shown(page, '.account-first-password p', /this account has no password yet\. Set one with a reset link/);
    await shown(
      page,
      'section:has(.account-email) > .hint',
      /^Changing the address asks for your password, and this account has none yet/,
    );
    await expectAccessible(page, 'an account without a password');
    await password.getByRole('button', { name: 'Mail me a link to set a password' }).click();
    await shown(
      page,
      '.account-first-password .done',
      `A mail with the link is on its way to ${user.email}. The link works for 30 minutes.`,
    );
    await until(
      () => mailsTo(user.email).some((mail) => /\/reset\?token=/.test(mailText(mail))),
      'the reset link at the SMTP server',
    );

    // The link as the SMTP server received it (quoted-printable and all) sets the first password.
    const link = linkInMail(mailsTo(user.email).at(-1)!, '/reset?token=');
    expect(link).toBe(await mailedLink(t, user.email, '/reset?token='));
    await page.goto(link);
    await page.getByRole('form', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await shown(page, '.done', 'Your new password is set, and you are signed in.');
    expect((await login(user.email, NEW_PASSWORD)).status).toBe(200);
    // The account has a password now: the Account page offers its change, not a reset link.
    await page.goto(`${t.url}/account`);
    await section(page, 'Password').getByRole('form', { name: 'Change your password' }).waitFor();
    expect(await page.locator('.account-first-password').count()).toBe(0);
    expect(problems.errors).toEqual([]);
  });

  it('lists the sessions with this one marked, and signs out one, then every other: they stop working', async () => {
    const user = await createConfirmedUser(t, 'Eve');
    const firefox = (await login(user.email, SDK_PASSWORD)).body.token;
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAccount(page, user);
    const sessions = section(page, 'Sessions');
    const rows = sessions.locator('.session-row');
    // This browser's session is the one the console holds (made at signup, through the API).
    await expect.poll(() => rows.count()).toBe(2);
    const current = rows.filter({ hasText: 'This browser' });
    expect(await current.count()).toBe(1);
    expect(await current.getByRole('button').count()).toBe(0);
    const other = rows.filter({ hasText: 'Firefox on Windows' });
    expect(await other.locator('dd').first().textContent()).toMatch(/^with the password, /);
    expect(await other.locator('time').first().getAttribute('datetime')).toMatch(/^\d{4}-/);
    expect(await other.locator('.session-agent').textContent()).toBe('Mozilla/5.0 (Windows NT 10.0) Firefox/140.0');
    await expectAccessible(page, 'the sessions');

    // By keyboard: the button, then the question's confirming button, focused.
    await other.getByRole('button', { name: /^Sign out Firefox on Windows/ }).focus();
    await page.keyboard.press('Enter');
    await other.getByRole('group', { name: /^Sign out Firefox on Windows\? It stops working at once/ }).waitFor();
    await expectAccessible(page, 'signing a session out, asked first');
    await page.keyboard.press('Enter');
    await shown(page, '.account-page section:has(.session-list) .done', 'Firefox on Windows is signed out.');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await status(firefox)).toBe(401);

    const phone = (await login(user.email, SDK_PASSWORD, 'Mozilla/5.0 (iPhone) Safari/605.1')).body.token;
    const laptop = (await login(user.email, SDK_PASSWORD, 'Mozilla/5.0 (Macintosh; Mac OS X) Safari/605.1')).body.token;
    await page.reload();
    await expect.poll(() => rows.count()).toBe(3);
    await sessions.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await sessions
      .getByRole('group', { name: 'Sign out the 2 other sessions? Only this browser stays signed in.' })
      .waitFor();
    await sessions.getByRole('button', { name: 'Sign them out' }).click();
    await shown(page, '.account-page section:has(.session-list) .done', '2 other sessions signed out; this one stays.');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await status(phone)).toBe(401);
    expect(await status(laptop)).toBe(401);
    expect(await status(user.token)).toBe(200);
    expect(problems.errors).toEqual([]);
  });

  it('makes a personal token shown once, copied, which works; revoked, asked first in words, it fails', async () => {
    const user = await createConfirmedUser(t, 'Fay');
    const { page, problems } = await browser.newPage({ ...LAPTOP, ...CLIPBOARD });
    await openAccount(page, user);
    const tokens = section(page, 'Personal API tokens');
    await shown(page, '.account-page .empty', 'You have no personal API tokens.');
    const form = tokens.getByRole('form', { name: 'Make a token' });
    await form.getByLabel('Name').fill('calendar');
    await form.getByRole('button', { name: 'Make the token' }).click();
    await shown(page, '.account-token-form .problem', 'Choose at least one scope.');
    await form.getByRole('checkbox', { name: /^workshops:read/ }).check();
    await form.getByRole('checkbox', { name: /^cards:read/ }).check();
    await form.getByRole('button', { name: 'Make the token' }).click();

    const secret = tokens.getByRole('group', { name: /^The token “calendar” is made/ });
    await secret.waitFor();
    await expectAccessible(page, 'a new token’s secret');
    const shownSecret = (await secret.locator('.secret-value').textContent())!;
    expect(shownSecret).toMatch(/^wsk_/);
    await secret.getByRole('button', { name: 'Copy the secret' }).click();
    await shown(page, '.secret-once .secret-copied', 'Copied.');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(shownSecret);
    expect(await status(copied, '/v1/user/me/workshops')).toBe(200);
    // Within its scopes only.
    expect((await t.request('POST', '/v1/workshops', { token: copied, body: { title: 'No' } })).status).toBe(403);

    const row = tokens.locator('.personal-token', { hasText: 'calendar' });
    expect(await row.locator('.token-scopes').textContent()).toBe('workshops:read, cards:read');
    await secret.getByRole('button', { name: 'I have kept it: hide it' }).click();
    await secret.waitFor({ state: 'detached' });
    // Shown once: reading the page again never shows it.
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(copied);

    await row.getByRole('button', { name: 'Revoke calendar' }).click();
    await row.getByRole('group', { name: 'Revoke “calendar”? Whatever uses it stops working at once.' }).waitFor();
    await row.getByRole('button', { name: 'Revoke token' }).click();
    await shown(
      page,
      '.account-page section:has(.token-list-personal, .account-token-form) > .done',
      'The token “calendar” is revoked: it no longer works.',
    );
    await row.waitFor({ state: 'detached' });
    expect(await status(copied, '/v1/user/me/workshops')).toBe(401);
    expect(problems.errors).toEqual([]);
  });

  it('downloads the data export as a ZIP file, fetched with the token and saved through a link', async () => {
    const user = await createConfirmedUser(t, 'Hål');
    await t.request('POST', '/v1/workshops', { token: user.token, body: { title: 'Hål’s retro' } });
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAccount(page, user);
    const data = section(page, 'Your data');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      data.getByRole('button', { name: 'Download your data' }).click(),
    ]);
    await shown(page, 'section:has(.account-download) .done', 'The file is on its way to your downloads.');
    // Named as the service names it, in its exact form (`filename*`), not the header's ASCII stand-in.
    expect(download.suggestedFilename()).toMatch(/^Hål data export \d{4}-\d{2}-\d{2}\.zip$/);
    const file = await readFile((await download.path())!);
    expect(file.subarray(0, 2).toString()).toBe('PK');
    expect(file.includes(Buffer.from('account.json'))).toBe(true);
    expect(await data.locator('.account-download').getAttribute('href')).toMatch(/^blob:/);
    await expectAccessible(page, 'the data export downloaded');
    expect(problems.errors).toEqual([]);
  });

  it('deletes the account after saying what goes and what passes to whom; then signed out, it is gone', async () => {
    const ada = await sdkUser(t, 'Ada');
    const bo = await sdkUser(t, 'Bo');
    await confirmAddress(t, ada.email, ada.api.token!);
    await confirmAddress(t, bo.email, bo.api.token!);
    // A workshop of Ada's own (deleted with her), one she runs with Bo (passed on to Bo).
    await ada.api.post('/v1/workshops', { body: { title: 'Solo retro' } });
    const shared = await sdkWorkshop(ada.api, [bo.api], 'Shared planning');
    const roles = await ada.api.get('/v1/workshops/{workshop_id}/user_roles', {
      params: { path: { workshop_id: shared.id } },
    });
    await ada.api.put('/v1/workshops/{workshop_id}/user_roles/{id}', {
      params: { path: { workshop_id: shared.id, id: roles.find((role) => role.user_id === bo.id)!.id } },
      body: { role: 'facilitator' },
    });
    // An organization of hers alone (deleted), and Bo's, which she leaves.
    await ada.api.post('/v1/organizations', { body: { name: 'Ada Solo Org' } });
    const bos = await bo.api.post('/v1/organizations', { body: { name: 'Bo Research' } });
    await bo.api.post('/v1/organizations/{id}/members', {
      params: { path: { id: bos.id } },
      body: { email: ada.email, role: 'facilitator' },
    });
    const adaToken = ada.api.token!;
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAccount(page, { token: adaToken, id: ada.id, email: ada.email, name: 'Ada' });
    const zone = section(page, 'Delete the account');
    await zone.getByRole('button', { name: 'Delete your account…' }).click();
    const asked = zone.getByRole('group', { name: 'Delete your account?' });
    await asked.waitFor();
    await shown(page, '.deletion-workshops-deleted', /1 workshop of yours deleted, with its files:\s*Solo retro/);
    await shown(
      page,
      '.deletion-workshops-passed-on',
      /1 workshop passed on to another facilitator:\s*Shared planning, to Bo/,
    );
    await shown(
      page,
      '.deletion-organizations-deleted',
      /1 organization deleted with you, as nobody else uses it:\s*Ada Solo Org/,
    );
    await shown(page, '.deletion-organizations-left', /1 organization you leave:\s*Bo Research/);
    await shown(page, '.deletion-counts', /^Also deleted: 1 session, 0 API tokens, \d+ notifications?,/);
    await expectAccessible(page, 'deleting the account, asked first');

    await asked.getByLabel('Your password').fill('not my password');
    await asked.getByRole('button', { name: 'Delete my account for good' }).click();
    await shown(page, '.account-deletion .problem', 'That password is wrong: nothing was deleted.');
    expect(await status(adaToken)).toBe(200);

    await asked.getByLabel('Your password').fill(SDK_PASSWORD);
    await asked.getByRole('button', { name: 'Delete my account for good' }).click();
    await page.locator('body[data-status="signed-out"]').waitFor();
    await shown(page, '.notice', /^Your account is deleted, and you are signed out everywhere\./);
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await page.evaluate(() => localStorage.getItem('workshop-console-token'))).toBeNull();
    expect(await status(adaToken)).toBe(401);
    expect((await login(ada.email, SDK_PASSWORD)).status).toBe(401);
    const kept = await bo.api.get('/v1/workshops/{id}', { params: { path: { id: shared.id } } });
    expect(kept.owner.name).toBe('Bo');
    expect(problems.errors).toEqual([]);
  });

  it('offers no deletion to the only admin of an organization others use, naming it', async () => {
    const ada = await sdkUser(t, 'Ada');
    const bo = await sdkUser(t, 'Bo');
    await confirmAddress(t, bo.email, bo.api.token!);
    const org = await ada.api.post('/v1/organizations', { body: { name: 'Acme Research' } });
    await ada.api.post('/v1/organizations/{id}/members', {
      params: { path: { id: org.id } },
      body: { email: bo.email, role: 'facilitator' },
    });
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, ada.api.token!, '/account');
    const zone = section(page, 'Delete the account');
    await zone.getByRole('button', { name: 'Delete your account…' }).click();
    await shown(page, '.account-blocked', /You are the only admin of 1 organization that others still use/);
    expect(await zone.getByRole('link', { name: 'Acme Research' }).getAttribute('href')).toBe(
      `/organizations/${org.id}`,
    );
    expect(await zone.getByRole('button', { name: 'Delete my account for good' }).count()).toBe(0);
    await expectAccessible(page, 'deletion refused to an only admin, on a phone');
    expect(await status(ada.api.token!)).toBe(200);
    expect(problems.errors).toEqual([]);
  });

  it('fits a phone, every section reachable, with no serious axe-core violation; an unconfirmed address said so', async () => {
    const user = await createUser(t, 'Gil');
    await login(user.email, SDK_PASSWORD);
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, user.token, '/account');
    await page.locator('.session-row').nth(1).waitFor();
    await shown(page, '.account-confirmed', 'Not confirmed yet: open the link in the mail we sent to it.');
    await shown(
      page,
      'section:has(.personal-token, .account-token-form, .empty) > .hint:last-child',
      /^Confirm your address first/,
    );
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'the account page on a phone');
    const sent = mailsTo(user.email).length;
    await section(page, 'Address').getByRole('button', { name: 'Send the confirmation mail again' }).click();
    await shown(page, '.confirmation-sent', 'A new confirmation mail is on its way.');
    await until(() => mailsTo(user.email).length > sent, 'the confirmation mail at the SMTP server');
    await section(page, 'Sessions').getByRole('button', { name: 'Sign out everywhere else' }).click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'the account page on a phone, a question asked');
    expect(problems.errors).toEqual([]);
  });

  it('sends a signed-out visitor of /account to sign in first, and serves the page under the pages’ policy', async () => {
    const res = await fetch(`${t.url}/account`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(`${t.url}/account`);
    await shown(page, '.notice', 'Sign in to open your account’s settings.');
    expect(problems.errors).toEqual([]);
  });
});
