import { sql } from 'drizzle-orm';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, SHOWS_WITHIN_MS, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import {
  createBlankWorkshop,
  createForm,
  expectAccessible,
  LAPTOP,
  mailedLink,
  openConsoleWithToken,
  PHONE,
  signInToConsole,
  signUpInConsole,
} from './helpers/console';
import { SDK_PASSWORD, sdkUser, sdkWorkshop } from './helpers/sdk';

/*
 * The facilitator console (`/`, docs/pages.md#the-console) in a real chromium: an account made
 * and confirmed through its forms and the mailed link, workshops created, found, archived and
 * deleted, and a workshop's public address taking each person where they belong.
 *
 * Among the slowest files (20 to 40 s): each test goes through the console's own forms in
 * chromium as a person does (an account made and confirmed from the mail, workshops created from a
 * template, a file and an address), never around them through the API.
 */

/** The script budget the console is held to, gzipped. */
const SCRIPT_BUDGET = 150 * 1024;

describe.skipIf(!browserAvailable)('the console: signing in and the workshops', () => {
  const t = useServer();
  const browser = useBrowser();

  it('serves one page at its addresses, under the pages’ policy, with a script within its budget', async () => {
    for (const path of ['/', '/signup?email=a%40b.test', '/confirm?token=x', '/invitations/abc', '/workshops/abc']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      const html = await res.text();
      expect(html).toContain('id="console"');
      expect(html).not.toMatch(/<script>(?!<)/);
    }
    const html = await (await fetch(`${t.url}/`)).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const body = new Uint8Array(await (await fetch(`${t.url}${script}`)).arrayBuffer());
    expect(gzipSync(body, { level: 9 }).length).toBeLessThan(SCRIPT_BUDGET);
  });

  it('answers a browser at an address that is no page with a page in words, and API clients with JSON', async () => {
    const html = { accept: 'text/html,application/xhtml+xml' };
    for (const path of ['/nowhere', '/workshops/not%20an%20id', '/screen/not%20an%20id']) {
      const res = await fetch(`${t.url}${path}`, { headers: html });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const page = await res.text();
      expect(page).toContain('No such page');
      expect(page).toContain('<a href="/">Go to your workshops</a>');
    }
    for (const [path, headers] of [
      ['/v1/nowhere', html],
      ['/nowhere', { accept: 'application/json' }],
    ] as const) {
      const res = await fetch(`${t.url}${path}`, { headers });
      expect(res.headers.get('content-type'), path).toContain('application/json');
      // Under /v1 the token is asked for before the route is looked for.
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        path.startsWith('/v1/') ? 'unauthenticated' : 'not_found',
      );
    }
  });

  it('makes an account, confirms its address from the mail, and signs out and in again', async () => {
    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(`${t.url}/`);
    await page.getByRole('button', { name: 'Sign in' }).first().waitFor();
    await expectAccessible(page, 'sign in');
    const { email } = await signUpInConsole(page, t.url, 'Fay');
    await shown(page, '.notice', /Confirm your address/);
    await expectAccessible(page, 'the workshops, empty');

    await page.goto(await mailedLink(t, email, '/confirm?token='));
    await shown(page, '.done', 'Your address is confirmed.');
    await expectAccessible(page, 'the confirmation');
    await page.getByRole('link', { name: 'Go to your workshops' }).click();
    await page.getByRole('heading', { name: 'Your workshops' }).waitFor();
    expect(await page.locator('.notice').count()).toBe(0);

    // Signing out revokes the token: the one the browser held is refused from then on.
    const token = await page.evaluate(() => localStorage.getItem('workshop-console-token'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Create an account' }).waitFor();
    const after = await fetch(`${t.url}/v1/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
    expect(await page.evaluate(() => localStorage.getItem('workshop-console-token'))).toBeNull();

    // A wrong password is said on the form; the right one signs in.
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).last().click();
    await shown(page, '.problem', /./);
    await signInToConsole(page, t.url, email);
    expect(problems.errors).toEqual([]);
  });

  /** The status of a login with the password the account was made with. */
  const passwordLogin = async (email: string) =>
    (await t.request('POST', '/v1/auth/login', { body: { email, password: SDK_PASSWORD } })).status;

  it('asks a signed-out visitor to sign in before confirming, so the password the account was made with keeps working', async () => {
    const { email } = await sdkUser(t, 'Sam');
    const link = await mailedLink(t, email, '/confirm?token=');
    const prompt =
      'Sign in to the account to confirm its address. You keep your password, and this browser stays signed in.';

    const phone = await browser.newPage(PHONE);
    await phone.page.goto(link);
    await shown(phone.page, '.notice', prompt);
    await expectAccessible(phone.page, 'the confirmation, signed out, on a phone');

    const { page, problems } = await browser.newPage(LAPTOP);
    await page.goto(link);
    await shown(page, '.notice', prompt);
    // The link's token is kept for the tab, not in the address.
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('button', { name: 'Confirm without signing in' }).waitFor();
    await expectAccessible(page, 'the confirmation, signed out');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(SDK_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await shown(page, '.done', 'Your address is confirmed.');
    await expectAccessible(page, 'the confirmation, signed in');

    const token = await page.evaluate(() => localStorage.getItem('workshop-console-token'));
    const account = await fetch(`${t.url}/v1/user/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await account.json()) as { confirmed_at: string | null }).confirmed_at).not.toBeNull();
    expect(await passwordLogin(email)).toBe(200);
    expect(problems.errors).toEqual([]);
    expect(phone.problems.errors).toEqual([]);
  });

  it('confirms without signing in only when asked, and says the password has ended', async () => {
    const { email } = await sdkUser(t, 'Ida');
    const { page, problems } = await browser.newPage(PHONE);
    await page.goto(await mailedLink(t, email, '/confirm?token='));
    await page.getByRole('button', { name: 'Confirm without signing in' }).click();
    await shown(page, '.done', 'The address is confirmed.');
    await expectAccessible(page, 'confirmed without signing in, on a phone');
    expect(await passwordLogin(email)).toBe(401);
    expect(problems.errors).toEqual([]);
  });

  it('creates, finds, archives, reopens and deletes workshops', async () => {
    const { page, problems } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await signUpInConsole(page, t.url, 'Gil');
    const retro = await createBlankWorkshop(page, 'Sprint retro');
    expect(new URL(page.url()).search).toBe('?tab=agenda');
    await page.getByRole('link', { name: 'Workshops' }).first().click();
    const planning = await createBlankWorkshop(page, 'Planning day');
    await page.getByRole('link', { name: 'Workshops' }).first().click();

    const rows = page.locator('.workshop-row');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Search').fill('retro');
    await expect.poll(() => rows.count()).toBe(1);
    await shown(page, '.workshop-link', 'Sprint retro');
    await page.getByLabel('Search').fill('');

    // A copy, from the list's own workshops.
    const form = await createForm(page);
    await form.getByLabel('Copy of a workshop').check();
    await form.getByLabel('Workshop to copy').selectOption(retro);
    await form.getByLabel('Title', { exact: true }).fill('Retro, again');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Retro, again' }).waitFor();
    await page.getByRole('link', { name: 'Workshops' }).first().click();
    await expect.poll(() => rows.count()).toBe(3);

    // Archived, it leaves the running list and shows under Archived, where it can be reopened.
    const planningRow = page.locator(`.workshop-row[data-workshop="${planning}"]`);
    await planningRow.getByRole('button', { name: 'Archive Planning day' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('State').selectOption('archived');
    await expect.poll(() => rows.count()).toBe(1);
    await planningRow.getByRole('button', { name: 'Reopen Planning day' }).click();
    await expect.poll(() => rows.count()).toBe(0);
    await page.getByLabel('State').selectOption('running');
    await expect.poll(() => rows.count()).toBe(3);

    // Deleting asks first; cancelling keeps it.
    await planningRow.getByRole('button', { name: 'Delete' }).click();
    await planningRow.getByRole('button', { name: 'Cancel' }).click();
    await planningRow.getByRole('button', { name: 'Delete' }).click();
    await expectAccessible(page, 'the workshops, asking before a delete');
    await planningRow.getByRole('button', { name: 'Delete for good' }).click();
    await expect.poll(() => rows.count()).toBe(2);
    const gone = await fetch(`${t.url}/v1/workshops/${planning}`);
    expect(gone.status).toBe(401);
    expect(problems.errors).toEqual([]);
  });

  it('opens a workshop’s public address: its console for a facilitator, the participant page for a participant', async () => {
    const fay = await sdkUser(t, 'Fay');
    const pat = await sdkUser(t, 'Pat');
    const { id, workshop } = await sdkWorkshop(fay.api, [pat.api], 'Kick-off');

    const { page } = await browser.newPage(PHONE);
    await page.goto(workshop.public_url);
    await shown(page, '.notice', 'Sign in to open the workshop, or join it with its code.');
    await page.evaluate((token) => localStorage.setItem('workshop-console-token', token), pat.api.token!);
    await page.goto(workshop.public_url);
    await page.waitForURL(`**/w/${id}`);
    // The account goes on with the person: the participant page opens the workshop, no join form.
    await page.locator('body[data-status="live"]').waitFor();

    await page.evaluate((token) => localStorage.setItem('workshop-console-token', token), fay.api.token!);
    await page.goto(workshop.public_url);
    await page.getByRole('heading', { level: 1, name: 'Kick-off' }).waitFor();
    await expectAccessible(page, 'a workshop on a phone');
  });

  it('takes an invitation’s link through creating an account, on the phone’s clock, to the workshop, as a participant', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [], 'Offsite');
    const email = `ivy-${process.pid}-${Date.now()}@example.test`;
    await fay.api.post('/v1/workshops/{workshop_id}/invitations', {
      ...inWorkshop,
      body: { emails: email, content: 'Join us on Friday' },
    });
    const { page, problems } = await browser.newPage({ ...PHONE, timezoneId: 'Pacific/Auckland' });
    await page.goto(await mailedLink(t, email, '/invitations/'));
    await shown(
      page,
      '.notice',
      'Fay invites you to the workshop “Offsite”. Sign in or create an account to accept the invitation.',
    );
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByLabel('Your name').fill('Ivy');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`**/w/${id}`);
    await page.locator('body[data-status="live"]').waitFor();
    const roles = await fay.api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop);
    expect(roles.map((role) => [role.name, role.role]).sort()).toEqual([
      ['Fay', 'facilitator'],
      ['Ivy', 'participant'],
    ]);
    // Her daily mail comes at 07:00 on her own clock.
    const [ivy] = await t.rows<{ time_zone: string }>(sql`select time_zone from users where email = ${email}`);
    expect(ivy!.time_zone).toBe('Pacific/Auckland');
    expect(problems.errors).toEqual([]);
  });

  it('lends its token only to the screen it opens: a link cannot sign a screen in as someone else, nor swap its token', async () => {
    const fay = await sdkUser(t, 'Fay');
    const mallory = await sdkUser(t, 'Mallory');
    const { id } = await sdkWorkshop(fay.api, [], 'Projector');
    const { id: elsewhere } = await sdkWorkshop(mallory.api, [], 'Elsewhere');
    const screenToken = (page: Page) => page.evaluate(() => sessionStorage.getItem('workshop-screen-token'));
    const signInHeading = (page: Page) => page.getByRole('heading', { name: 'Sign in to the workshop screen' });

    // A link carrying someone's token opens a screen that is signed out, the token gone from the address.
    const linked = await browser.newPage(LAPTOP);
    await linked.page.goto(`${t.url}/screen/${id}#token=${encodeURIComponent(mallory.api.token!)}`);
    await linked.page.locator('body[data-status="signed-out"], body[data-status="live"]').waitFor();
    expect(await linked.page.locator('body').getAttribute('data-status')).toBe('signed-out');
    await signInHeading(linked.page).waitFor();
    expect(linked.page.url()).toBe(`${t.url}/screen/${id}`);
    expect(await screenToken(linked.page)).toBeNull();

    // The console's own button opens it signed in as Fay.
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=run`);
    const [screen] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('button', { name: 'Open the screen for the projector' }).click(),
    ]);
    await screen.locator('body[data-status="live"]').waitFor();
    expect(screen.url()).toBe(`${t.url}/screen/${id}`);
    expect(await screenToken(screen)).toBe(fay.api.token);

    // That screen, sent on by a link with Mallory's token, is still Fay's: Mallory's workshop stays closed to it.
    await screen.goto(`${t.url}/screen/${elsewhere}#token=${encodeURIComponent(mallory.api.token!)}`);
    await shown(screen, '#notice', /not one of its members/);
    expect(screen.url()).toBe(`${t.url}/screen/${elsewhere}`);
    expect(await screenToken(screen)).toBe(fay.api.token);

    // Signing out there forgets the lent token only: the console stays signed in, and is not asked again.
    await screen.goto(`${t.url}/screen/${id}`);
    await screen.locator('body[data-status="live"]').waitFor();
    await screen.getByRole('button', { name: 'Sign out' }).click();
    await signInHeading(screen).waitFor();
    const still = await fetch(`${t.url}/v1/user/me`, { headers: { authorization: `Bearer ${fay.api.token}` } });
    expect(still.status).toBe(200);
    expect(await screenToken(screen)).toBeNull();
    expect(await screen.evaluate(() => window.opener)).toBeNull();
    expect([...problems.errors, ...linked.problems.errors]).toEqual([]);

    // Signed in on the screen's own form, the token is the screen's: signing out ends it.
    await screen.getByLabel('E-mail').fill(fay.email);
    await screen.getByLabel('Password').fill(SDK_PASSWORD);
    await screen.getByRole('button', { name: 'Sign in' }).click();
    await screen.locator('body[data-status="live"]').waitFor();
    const own = await screenToken(screen);
    await screen.getByRole('button', { name: 'Sign out' }).click();
    await signInHeading(screen).waitFor();
    const ended = await fetch(`${t.url}/v1/user/me`, { headers: { authorization: `Bearer ${own}` } });
    expect(ended.status).toBe(401);
  });

  it('creates a workshop from a template, from a native file uploaded from the computer, and from a file’s address', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { page, problems } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(SHOWS_WITHIN_MS);
    await openConsoleWithToken(page, t.url, fay.api.token!, '/');

    let form = await createForm(page);
    await form.getByLabel('From a template').check();
    await form.getByLabel('Template', { exact: true }).selectOption({ label: 'Retrospective' });
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Retrospective' }).waitFor();
    const fromTemplate = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const steps = await fay.api.get('/v1/workshops/{workshop_id}/steps', {
      params: { path: { workshop_id: fromTemplate } },
    });
    expect(steps.length).toBeGreaterThan(2);

    // The template's workshop, exported as a native file: its link, and its bytes.
    const started = await fay.api.post('/v1/workshops/{workshop_id}/exports', {
      params: { path: { workshop_id: fromTemplate } },
      body: { type: 'native' },
    });
    const inExport = { params: { path: { workshop_id: fromTemplate, id: started.id } } };
    await expect
      .poll(async () => (await fay.api.get('/v1/workshops/{workshop_id}/exports/{id}', inExport)).state, {
        timeout: 15_000,
      })
      .toBe('success');
    const url = (await fay.api.get('/v1/workshops/{workshop_id}/exports/{id}', inExport)).url!;
    expect(url).toMatch(/^http/);
    const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());

    await page.getByRole('link', { name: 'Workshops' }).first().click();
    form = await createForm(page);
    await form.getByLabel('From a native file', { exact: true }).check();
    await form.getByLabel('Title (optional)').fill('Uploaded');
    await form
      .getByLabel('Native file (.json)')
      .setInputFiles({ name: 'retro.json', mimeType: 'application/json', buffer: bytes });
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Uploaded' }).waitFor();

    await page.getByRole('link', { name: 'Workshops' }).first().click();
    form = await createForm(page);
    await form.getByLabel('From a native file’s address').check();
    await form.getByLabel('Address of the native file').fill(`${t.url}/nowhere.json`);
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    // The service's refusal is said on the form, on the field it names.
    await shown(page, 'form[aria-label="Create a workshop"] .problem', /./);
    await expect.poll(() => form.getByLabel('Address of the native file').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Address of the native file').fill(url);
    await form.getByLabel('Title (optional)').fill('From the link');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'From the link' }).waitFor();

    const mine = await fay.api.get('/v1/user/me/workshops');
    expect(mine.map((workshop) => workshop.title).sort()).toEqual(['From the link', 'Retrospective', 'Uploaded']);
    for (const workshop of mine) {
      const copied = await fay.api.get('/v1/workshops/{workshop_id}/steps', {
        params: { path: { workshop_id: workshop.id } },
      });
      expect(copied.map((step) => step.name)).toEqual(steps.map((step) => step.name));
    }
    expect(problems.errors).toEqual([]);
  });
});
