import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { confirmAddress } from './helpers/factories';
import { sdkUser } from './helpers/sdk';

/*
 * An organization's settings in the console (docs/pages.md#an-organizations-settings) in a real
 * chromium, each action checked through the API afterwards: its name and avatar; its members and
 * pending seats, a role changed, a member removed, and the service's refusals (the last admin, a
 * caller who is no longer an admin) said in words; its API tokens with who made them (still after
 * the maker left), their scopes and use, one made with its secret shown once and copied, one
 * revoked, asked first in words. Webhooks and single sign-on: console-organization-webhooks.test.ts.
 *
 * Among the slowest files (about 30 s): every action goes through the page's own controls in
 * chromium, each checked through the API, and axe-core runs on seven states of the page.
 */

describe.skipIf(!browserAvailable)('the console: an organization’s settings', () => {
  const t = useServer();
  const browser = useBrowser();

  /**
   * Ada's organization, whose tokens are her "nightly export" (never used) and the "tracker" that
   * Bea made while an admin, used once; Bea has left since. Fred is a facilitator member.
   */
  async function scene() {
    const [ada, bea, fred] = await Promise.all(['Ada', 'Bea', 'Fred'].map((name) => sdkUser(t, name)));
    for (const person of [bea!, fred!]) await confirmAddress(t, person.email, person.api.token!);
    const org = await ada!.api.post('/v1/organizations', { body: { name: 'Acme Research' } });
    const inOrg = { params: { path: { id: org.id } } };
    await ada!.api.post('/v1/organizations/{id}/members', { ...inOrg, body: { email: bea!.email, role: 'admin' } });
    await ada!.api.post('/v1/organizations/{id}/members', {
      ...inOrg,
      body: { email: fred!.email, role: 'facilitator' },
    });
    await ada!.api.post('/v1/organizations/{id}/api_tokens', {
      ...inOrg,
      body: { name: 'nightly export', scopes: ['exports:read'] },
    });
    const tracker = await bea!.api.post('/v1/organizations/{id}/api_tokens', {
      ...inOrg,
      body: { name: 'tracker', scopes: ['workshops:read', 'members:read'] },
    });
    const asTracker = () =>
      fetch(`${t.url}/v1/organizations/${org.id}`, { headers: { authorization: `Bearer ${tracker.token}` } });
    expect((await asTracker()).status).toBe(200);
    const members = await ada!.api.get('/v1/organizations/{id}/members', inOrg);
    const beasSeat = members.find((member) => member.email === bea!.email)!;
    await ada!.api.delete('/v1/organizations/{id}/members/{member_id}', {
      params: { path: { id: org.id, member_id: beasSeat.id } },
    });
    const seatOf = async (email: string) =>
      (await ada!.api.get('/v1/organizations/{id}/members', inOrg)).find((member) => member.email === email);
    return { ada: ada!, fred: fred!, org, inOrg, tracker, asTracker, seatOf };
  }

  it('lists the tokens with their maker, scopes and use, and revokes one: it then gets 401', async () => {
    const { ada, tracker, asTracker } = await scene();
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.api.token!, '/');
    await page.getByRole('link', { name: 'Acme Research' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Research' }).waitFor();

    const row = page.locator(`.token-row[data-token="${tracker.id}"]`);
    await shown(page, `.token-row[data-token="${tracker.id}"] .token-name`, 'tracker');
    // Bea left the organization; her token still works, and still names her.
    expect(await row.locator('.token-maker').textContent()).toBe('Bea');
    expect(await row.locator('.token-scopes').textContent()).toBe('workshops:read, members:read');
    expect(await row.locator('.token-used time').getAttribute('datetime')).toMatch(/^\d{4}-/);
    const nightly = page.locator('.token-row', { hasText: 'nightly export' });
    expect(await nightly.locator('.token-maker').textContent()).toBe('Ada');
    expect(await nightly.locator('.token-used').textContent()).toBe('Never');

    await row.getByRole('button', { name: 'Revoke tracker' }).click();
    await row.getByRole('group', { name: /Revoke “tracker”\? Whatever uses it stops working at once/ }).waitFor();
    await expectAccessible(page, 'revoking a token, asked first');
    await row.getByRole('button', { name: 'Revoke token' }).click();
    await shown(page, '.token-said', 'The token “tracker” is revoked: it no longer works.');
    await row.waitFor({ state: 'detached' });
    expect(await page.locator('.token-row').count()).toBe(1);
    expect((await asTracker()).status).toBe(401);
    expect(problems.errors).toEqual([]);
  });

  it('makes a token with its scopes and expiry, shows its secret once with a copy button, and the token works', async () => {
    const { ada, org, inOrg } = await scene();
    const { page, problems } = await browser.newPage({ ...LAPTOP, permissions: ['clipboard-read', 'clipboard-write'] });
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    const form = page.getByRole('form', { name: 'Create an API token' });
    await form.getByLabel('Name').fill('calendar sync');
    // No scope chosen: the page says so without calling the service.
    await form.getByRole('button', { name: 'Create token' }).click();
    await shown(page, '.create-token .problem', 'Choose at least one scope.');
    await form.getByRole('checkbox', { name: /^workshops:read / }).check();
    await form.getByRole('checkbox', { name: /^members:read / }).check();
    const nextYear = `${new Date().getFullYear() + 1}-06-30`;
    await form.getByLabel('Expires on (optional)').fill(nextYear);
    await form.getByRole('button', { name: 'Create token' }).click();

    const secret = page.locator('.secret-once');
    await shown(page, '.secret-once .secret-title', 'The token “calendar sync”. It is shown this once: copy it now.');
    const token = (await secret.locator('.secret-value').textContent())!;
    expect(token).toMatch(/^wsk_/);
    await expectAccessible(page, 'a new token shown once');
    // The copy button, from the keyboard.
    await secret.getByRole('button', { name: 'Copy the secret' }).focus();
    await page.keyboard.press('Enter');
    await shown(page, '.secret-copied', 'Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

    const made = (await ada.api.get('/v1/organizations/{id}/api_tokens', inOrg)).find(
      (t) => t.name === 'calendar sync',
    );
    expect(made?.scopes).toEqual(['workshops:read', 'members:read']);
    expect(made?.created_by.name).toBe('Ada');
    // The end of the chosen day, where the browser is.
    expect(new Date(made!.expires_at!).getTime()).toBe(new Date(`${nextYear}T23:59:59.999`).getTime());
    await page.locator(`.token-row[data-token="${made!.id}"]`).waitFor();
    const asToken = await fetch(`${t.url}/v1/organizations/${org.id}/workshops`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(asToken.status).toBe(200);

    await secret.getByRole('button', { name: 'I have kept it: hide it' }).click();
    await secret.waitFor({ state: 'detached' });
    // Shown once: a reload holds it nowhere.
    await page.reload();
    await page.locator(`.token-row[data-token="${made!.id}"]`).waitFor();
    expect(await page.content()).not.toContain(token);
    expect(problems.errors).toEqual([]);
  });

  it('renames the organization and sets and removes its avatar, each saved visibly', async () => {
    const { ada, org, inOrg } = await scene();
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    const form = page.getByRole('form', { name: 'The organization’s name' });
    await form.getByLabel('Name').fill('Acme Labs');
    await shown(page, '.organization-profile .save-row .hint', 'Not saved yet.');
    await form.getByLabel('Name').press('Enter');
    await shown(page, '.organization-profile .save-row .done', 'Saved.');
    await page.getByRole('heading', { level: 1, name: 'Acme Labs' }).waitFor();
    expect((await ada.api.get('/v1/organizations/{id}', inOrg)).name).toBe('Acme Labs');

    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#1f4e79' } })
      .png()
      .toBuffer();
    await page.getByLabel('Choose an image').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
    await shown(page, '.avatar-said', 'Avatar saved.');
    const avatar = (await ada.api.get('/v1/organizations/{id}', inOrg)).avatar_url;
    expect(avatar).toBeTruthy();
    const image = page.getByRole('img', { name: 'Avatar of Acme Labs' });
    expect(await image.getAttribute('src')).toBe(avatar);
    await page.waitForFunction(() => document.querySelector<HTMLImageElement>('.organization-avatar-large')?.complete);
    expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64);

    await page.getByRole('button', { name: 'Remove the avatar' }).click();
    await page.getByRole('button', { name: 'Remove avatar' }).click();
    await shown(page, '.avatar-said', 'Avatar removed.');
    expect((await ada.api.get('/v1/organizations/{id}', inOrg)).avatar_url).toBeNull();
    expect(problems.errors).toEqual([]);
  });

  it('adds members and pending seats, changes a role, removes one, and says the refusals in words', async () => {
    const { ada, fred, org, seatOf } = await scene();
    const gus = await sdkUser(t, 'Gus');
    await confirmAddress(t, gus.email, gus.api.token!);
    const newcomer = `newcomer-${process.pid}-${Date.now()}@example.test`;
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    const add = page.getByRole('form', { name: 'Add a member' });
    const rowOf = (email: string) => page.locator('.member-row', { hasText: email });

    // An address without an account: a pending seat.
    await add.getByLabel('E-mail address').fill(newcomer);
    await add.getByRole('button', { name: 'Add member' }).click();
    await shown(
      page,
      '.add-member .done',
      `${newcomer} has no confirmed account yet: a seat as facilitator waits for it, and a mail says so.`,
    );
    await rowOf(newcomer).locator('.member-pending').waitFor();
    expect(await seatOf(newcomer)).toMatchObject({ pending: true, role: 'facilitator' });

    // A confirmed account, as an admin.
    await add.getByLabel('E-mail address').fill(gus.email);
    await add.getByLabel('Role').selectOption('admin');
    await add.getByRole('button', { name: 'Add member' }).click();
    await shown(page, '.add-member .done', 'Gus is now an admin of Acme Research.');
    expect(await seatOf(gus.email)).toMatchObject({ pending: false, role: 'admin' });
    await expectAccessible(page, "an organization's members");

    // Fred becomes an admin, and Gus a facilitator again.
    await rowOf(fred.email).getByRole('button', { name: 'Make admin Fred' }).click();
    await shown(page, '.member-said', 'Fred is now an admin.');
    expect((await seatOf(fred.email))?.role).toBe('admin');
    await rowOf(gus.email).getByRole('button', { name: 'Make facilitator Gus' }).click();
    await shown(page, '.member-said', 'Gus is now a facilitator.');
    expect((await seatOf(gus.email))?.role).toBe('facilitator');

    // The pending seat withdrawn, asked first in words.
    await rowOf(newcomer)
      .getByRole('button', { name: `Withdraw ${newcomer}` })
      .click();
    await rowOf(newcomer)
      .getByRole('group', {
        name: `Withdraw the seat for ${newcomer}? The address no longer joins Acme Research when its account is confirmed.`,
      })
      .waitFor();
    await rowOf(newcomer).getByRole('button', { name: 'Withdraw seat' }).click();
    await shown(page, '.member-said', `The seat for ${newcomer} is withdrawn.`);
    expect(await seatOf(newcomer)).toBeUndefined();

    // Gus removed from the keyboard: the question's confirming button takes the focus.
    await rowOf(gus.email).getByRole('button', { name: 'Remove Gus' }).focus();
    await page.keyboard.press('Enter');
    await rowOf(gus.email)
      .getByRole('group', { name: /^Remove Gus from Acme Research\? They lose its workshops at once/ })
      .waitFor();
    await page.keyboard.press('Enter');
    await shown(page, '.member-said', 'Gus is no longer a member of Acme Research.');
    expect(await seatOf(gus.email)).toBeUndefined();
    expect((await gus.api.get('/v1/user/me/organizations')).map((o) => o.id)).not.toContain(org.id);

    // Fred, now an admin, makes Ada a facilitator meanwhile: her next change is refused, in words.
    const adasSeat = (await seatOf(ada.email))!;
    await fred.api.put('/v1/organizations/{id}/members/{member_id}', {
      params: { path: { id: org.id, member_id: adasSeat.id } },
      body: { role: 'facilitator' },
    });
    await rowOf(fred.email).getByRole('button', { name: 'Make facilitator Fred' }).click();
    await shown(
      page,
      '.organization .problem',
      'Only the organization’s admins change members, and you are no longer one of them: their role stays admin.',
    );
    expect((await seatOf(fred.email))?.role).toBe('admin');
    // The page, read again, is a facilitator's now.
    await shown(
      page,
      '.not-admin',
      'Only the organization’s admins manage its name, members, API tokens, webhooks and single sign-on, and you are one of its facilitators. Ask Fred.',
    );
    expect(await page.locator('.panel').count()).toBe(0);
    expect(problems.errors).toEqual([]);
  });

  it('keeps the last admin one, said in words', async () => {
    const { ada, org, seatOf } = await scene();
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    const row = page.locator('.member-row', { hasText: ada.email });
    await row.getByRole('button', { name: 'Make facilitator Ada' }).click();
    await shown(
      page,
      '.member-problem',
      'You are the last admin of Acme Research, so your role stays admin: make someone else an admin first. An organization always keeps one admin.',
    );
    expect((await seatOf(ada.email))?.role).toBe('admin');
    await row.getByRole('button', { name: 'Leave Acme Research' }).click();
    await row.getByRole('button', { name: 'Leave the organization' }).click();
    await shown(
      page,
      '.member-problem',
      'You are the last admin of Acme Research, so you stay a member: make someone else an admin first. An organization always keeps one admin.',
    );
    expect((await seatOf(ada.email))?.role).toBe('admin');
    await expectAccessible(page, 'a refused role change');
    expect(problems.errors).toEqual([]);
  });

  it("names the token in a workshop's log when a change was made with one", async () => {
    const { ada, org } = await scene();
    const sync = await ada.api.post('/v1/organizations/{id}/api_tokens', {
      params: { path: { id: org.id } },
      body: { name: 'calendar sync', scopes: ['workshops:write'] },
    });
    const made = await fetch(`${t.url}/v1/organizations/${org.id}/workshops`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sync.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Planning' }),
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/workshops/${id}?tab=log`);
    await shown(page, '.log-entry:first-child .log-words', /^Ada \(through the API token “calendar sync”\) /);
    expect(problems.errors).toEqual([]);
  });

  it('has no serious axe-core violation at 1280×800 and 390×844, and tells a facilitator who manages it', async () => {
    const { ada, fred, org } = await scene();
    for (const size of [LAPTOP, PHONE]) {
      const { page, problems } = await browser.newPage(size);
      await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
      await page.locator('.token-row', { hasText: 'nightly export' }).waitFor();
      await shown(page, '#webhooks > .empty', 'This organization has no webhook endpoints.');
      for (const heading of ['Organization', 'Members', 'API tokens', 'Webhooks', 'Single sign-on'])
        await page.getByRole('heading', { level: 2, name: heading, exact: true }).waitFor();
      // This server has no OpenID provider: the setting says so and cannot be turned on.
      await shown(page, '.sso-explained', /^No OpenID provider is configured on this server/);
      expect(await page.getByRole('checkbox', { name: 'Require single sign-on' }).isDisabled()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.viewport!.width);
      await expectAccessible(page, `an organization's settings at ${size.viewport!.width} px`);
      expect(problems.errors).toEqual([]);
    }

    const facilitator = await browser.newPage(PHONE);
    await openConsoleWithToken(facilitator.page, t.url, fred.api.token!, `/organizations/${org.id}`);
    await shown(
      facilitator.page,
      '.not-admin',
      'Only the organization’s admins manage its name, members, API tokens, webhooks and single sign-on, and you are one of its facilitators. Ask Ada.',
    );
    expect(await facilitator.page.locator('.panel').count()).toBe(0);
    await expectAccessible(facilitator.page, "an organization's settings for a facilitator");
    expect(facilitator.problems.errors).toEqual([]);
  });
});
