import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { confirmAddress } from './helpers/factories';
import { sdkUser } from './helpers/sdk';

/*
 * An organization's settings in the console (docs/pages.md#the-console) in a real chromium: its
 * admins see its API tokens with who made them (still after the maker left), their scopes, when
 * they were made and last used, and revoke one, asked first in words; the token then stops working.
 */

describe.skipIf(!browserAvailable)('the console: an organization’s API tokens', () => {
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
    return { ada: ada!, fred: fred!, org, tracker, asTracker };
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
    await expectAccessible(page, "an organization's API tokens");

    await row.getByRole('button', { name: 'Revoke tracker' }).click();
    await row.getByRole('group', { name: /Revoke “tracker”\? Whatever uses it stops working at once/ }).waitFor();
    await expectAccessible(page, 'revoking a token, asked first');
    await row.getByRole('button', { name: 'Revoke token' }).click();
    await shown(page, '.organization .done', 'The token “tracker” is revoked: it no longer works.');
    await row.waitFor({ state: 'detached' });
    expect(await page.locator('.token-row').count()).toBe(1);
    expect((await asTracker()).status).toBe(401);
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

  it('fits a phone, and tells a member who is no admin that admins manage the tokens', async () => {
    const { ada, fred, org } = await scene();
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    await page.locator('.token-row', { hasText: 'nightly export' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, "an organization's API tokens on a phone");

    const facilitator = await browser.newPage(PHONE);
    await openConsoleWithToken(facilitator.page, t.url, fred.api.token!, `/organizations/${org.id}`);
    await shown(
      facilitator.page,
      '.organization .empty',
      'Only the organization’s admins see and revoke its API tokens.',
    );
    await expectAccessible(facilitator.page, "an organization's settings for a facilitator");
    expect([...problems.errors, ...facilitator.problems.errors]).toEqual([]);
  });
});
