import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createClient } from '../client-sdk/src/index';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { createForm, LAPTOP, openConsoleWithToken, signInToConsole } from './helpers/console';
import { confirmAddress } from './helpers/factories';
import { SDK_PASSWORD, sdkUser, sdkWorkshop } from './helpers/sdk';

/*
 * The console's forms keep what is typed for the tab (docs/pages.md#nothing-typed-is-lost), in a
 * real chromium against a real server: invitations, a criterion, a section and a step being added,
 * the settings, a canvas laid out, a workshop being created, an organization's webhook and member
 * come back after a reload, and after a session ended and signed in again; each workshop keeps its
 * own; once sent, or once the person signs out, a reload shows the form empty.
 *
 * Among the slowest files (about 10 s): every form is filled, the page reloaded and read back,
 * in five tests that each sign in and open a workshop.
 */

const values = (page: Page, labels: string[], within = page.locator('body')) =>
  Promise.all(labels.map((label) => within.getByLabel(label, { exact: true }).inputValue()));

async function reloaded(page: Page, heading: string) {
  await page.reload();
  await page.getByRole('heading', { name: heading }).first().waitFor();
}

describe.skipIf(!browserAvailable)('the console keeps what is typed in its forms', () => {
  const t = useServer();
  const browser = useBrowser();

  it('keeps the addresses and message typed in the invitations form through a reload and an ended session, apart for each workshop, until they are sent', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { id } = await sdkWorkshop(fay.api, [], 'Invited');
    const other = await sdkWorkshop(fay.api, [], 'Other');
    // The console's own session, ended below without ending the test's.
    const { token } = await createClient({ baseUrl: t.url }).post('/v1/auth/login', {
      body: { email: fay.email, password: SDK_PASSWORD },
    });
    const { page } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await openConsoleWithToken(page, t.url, token, `/workshops/${id}?tab=people`);
    const form = page.getByRole('form', { name: 'Invite by e-mail' });
    const typed = ['ann@example.test, bob@example.test', 'Join our retro on Friday.'];
    await form.getByLabel('E-mail addresses').fill(typed[0]!);
    await form.getByLabel('Message').fill(typed[1]!);
    await form.getByLabel('Co-facilitator').check();

    await reloaded(page, 'Members');
    expect(await values(page, ['E-mail addresses', 'Message'], form)).toEqual(typed);
    expect(await form.getByLabel('Co-facilitator').isChecked()).toBe(true);

    // Another workshop's form is its own.
    await page.goto(`${t.url}/workshops/${other.id}?tab=people`);
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect(await values(page, ['E-mail addresses', 'Message'], form)).toEqual(['', '']);

    // The session ended, the page opened again: signed in, the form is as it was left.
    await createClient({ baseUrl: t.url, token }).post('/v1/auth/logout');
    await page.goto(`${t.url}/workshops/${id}?tab=people`);
    await page.getByLabel('Password').fill(SDK_PASSWORD);
    await page.getByLabel('E-mail address').fill(fay.email);
    await page.getByRole('button', { name: 'Sign in' }).last().click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    expect(await values(page, ['E-mail addresses', 'Message'], form)).toEqual(typed);

    await form.getByRole('button', { name: 'Send invitations' }).click();
    await shown(page, '.invite-form .done', /Invitations sent to ann@example.test, bob@example.test/);
    await reloaded(page, 'Members');
    await page.locator('.invitation-row').first().waitFor();
    expect(await values(page, ['E-mail addresses', 'Message'], form)).toEqual(['', '']);
    expect(await form.getByLabel('Participant').isChecked()).toBe(true);
  });

  it('keeps the settings changed and a criterion, a section and a step typed through a reload, until they are saved or added', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { id } = await sdkWorkshop(fay.api, [], 'Planning');
    const { page } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=agenda`);
    const criteria = page.getByRole('region', { name: 'Criteria' });
    const sections = page.getByRole('region', { name: 'Sections' });
    const steps = page.getByRole('form', { name: 'Add a step' });
    const settings = page.getByRole('form', { name: 'Workshop settings' });
    await settings.getByLabel('Description').fill('Plan the quarter.');
    await criteria.getByLabel('New criterion').fill('Impact');
    await criteria.getByLabel('Scale').selectOption({ label: '0 to 4' });
    await sections.getByLabel('New section').fill('Risks');
    await steps.getByLabel('New step').fill('Warm-up');

    await reloaded(page, 'Steps');
    expect(await criteria.getByLabel('New criterion').inputValue()).toBe('Impact');
    expect(await criteria.getByLabel('Scale').inputValue()).toBe('4');
    expect(await sections.getByLabel('New section').inputValue()).toBe('Risks');
    expect(await steps.getByLabel('New step').inputValue()).toBe('Warm-up');
    expect(await settings.getByLabel('Description').inputValue()).toBe('Plan the quarter.');

    await criteria.getByRole('button', { name: 'Add criterion' }).click();
    await criteria.locator('.titled-row[data-title="Impact"]').waitFor();
    await sections.getByRole('button', { name: 'Add section' }).click();
    await sections.locator('.titled-row[data-title="Risks"]').waitFor();
    await steps.getByRole('button', { name: 'Add step' }).click();
    await page.getByRole('button', { name: 'Warm-up', exact: true }).waitFor();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await shown(page, '.settings .done', 'Saved.');
    // Changed elsewhere since: the form shows the workshop as it is, nothing kept over it.
    await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { description: 'Plan the year.' } });
    await reloaded(page, 'Steps');
    await criteria.locator('.titled-row[data-title="Impact"]').waitFor();
    expect(await criteria.getByLabel('New criterion').inputValue()).toBe('');
    expect(await criteria.getByLabel('Scale').inputValue()).toBe('1');
    expect(await sections.getByLabel('New section').inputValue()).toBe('');
    expect(await steps.getByLabel('New step').inputValue()).toBe('');
    await expect.poll(() => settings.getByLabel('Description').inputValue()).toBe('Plan the year.');
  });

  it('keeps a canvas laid out by hand and not saved through a reload, until it is saved', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [], 'Canvas');
    const { page } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=agenda`);
    const canvas = page.getByRole('region', { name: 'Canvas' });
    await canvas.getByText('This workshop has no canvas.').waitFor();
    await canvas.getByText('Lay out a canvas of your own').click();
    const layout = canvas.getByRole('form', { name: 'Canvas layout' });
    await layout.getByLabel('Canvas name').fill('Roadmap');
    await layout.getByLabel('Columns').fill('9');
    await layout.getByRole('button', { name: 'Add a zone' }).click();
    await layout.getByRole('group', { name: 'Zone 1' }).getByLabel('Name').fill('Now');
    await layout.getByRole('group', { name: 'Zone 1' }).getByLabel('Width').fill('3');

    // Back open, as it was left.
    await reloaded(page, 'Steps');
    expect(await values(page, ['Canvas name', 'Columns', 'Rows'], layout)).toEqual(['Roadmap', '9', '8']);
    const zone = layout.getByRole('group', { name: 'Zone 1' });
    expect(await values(page, ['Name', 'Width'], zone)).toEqual(['Now', '3']);

    await layout.getByRole('button', { name: 'Save canvas' }).click();
    await shown(page, '.canvas-name', 'Roadmap');
    await reloaded(page, 'Steps');
    await shown(page, '.canvas-name', 'Roadmap');
    await expect.poll(() => layout.isVisible()).toBe(false);
    // Changed by another meanwhile: the form shows the canvas as it is now, nothing kept over it.
    await fay.api.post('/v1/workshops/{workshop_id}/canvas', {
      ...inWorkshop,
      body: { name: 'Roadmap 2', background: { cols: 6, rows: 4 }, zones: [] },
    });
    await shown(page, '.canvas-name', 'Roadmap 2');
    await canvas.getByText('Change the grid and zones').click();
    expect(await values(page, ['Canvas name', 'Columns', 'Rows'], layout)).toEqual(['Roadmap 2', '6', '4']);
  });

  it('keeps a workshop typed and not created yet through a reload, for the account that typed it only, until it is created or the person signs out', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { page } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await openConsoleWithToken(page, t.url, fay.api.token!, '/');
    let form = await createForm(page);
    await form.getByLabel('Blank').check();
    await form.getByLabel('Title', { exact: true }).fill('Team retro');
    await form.getByLabel('Description (optional)').fill('Last sprint, in an hour.');

    await reloaded(page, 'Your workshops');
    form = await createForm(page);
    expect(await values(page, ['Title', 'Description (optional)'], form)).toEqual([
      'Team retro',
      'Last sprint, in an hour.',
    ]);
    await form.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'Team retro' }).waitFor();
    await page.goto(`${t.url}/`);
    form = await createForm(page);
    expect(await form.getByLabel('Title', { exact: true }).inputValue()).toBe('');

    // Another account opening the console in this tab (its token put in place, no sign-out here)
    // finds none of it; the account that typed it finds it again.
    await form.getByLabel('Title', { exact: true }).fill('Private plans');
    const kim = await sdkUser(t, 'Kim');
    await openConsoleWithToken(page, t.url, kim.api.token!, '/');
    expect(await (await createForm(page)).getByLabel('Title', { exact: true }).inputValue()).toBe('');
    await openConsoleWithToken(page, t.url, fay.api.token!, '/');
    form = await createForm(page);
    expect(await form.getByLabel('Title', { exact: true }).inputValue()).toBe('Private plans');

    // Signing out drops what this tab kept: whoever signs in here next does not find it.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInToConsole(page, t.url, fay.email);
    form = await createForm(page);
    expect(await form.getByLabel('Title', { exact: true }).inputValue()).toBe('');
  });

  it('keeps an organization’s webhook endpoint (but its URL, which may hold a secret) and member typed and not added yet through a reload, until each is added', async () => {
    const ada = await sdkUser(t, 'Ada');
    await confirmAddress(t, ada.email, ada.api.token!);
    const org = await ada.api.post('/v1/organizations', { body: { name: 'Acme Research' } });
    const { page } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    const webhook = page.getByRole('form', { name: 'Add a webhook endpoint' });
    const member = page.getByRole('form', { name: 'Add a member' });
    await webhook.getByLabel('URL').fill('https://hooks.example.test/acme');
    await webhook.getByLabel('Description (optional)').fill('The team’s chat');
    await member.getByLabel('E-mail address').fill('bea@example.test');

    await reloaded(page, 'Add an endpoint');
    // The endpoint's URL is not kept: many carry their secret in it.
    expect(await values(page, ['URL', 'Description (optional)'], webhook)).toEqual(['', 'The team’s chat']);
    expect(await member.getByLabel('E-mail address').inputValue()).toBe('bea@example.test');

    await member.getByRole('button', { name: 'Add member' }).click();
    await page.locator('.member-row', { hasText: 'bea@example.test' }).waitFor();
    await reloaded(page, 'Add an endpoint');
    await page.locator('.member-row', { hasText: 'bea@example.test' }).waitFor();
    expect(await member.getByLabel('E-mail address').inputValue()).toBe('');
    // The endpoint was not added: its description is still there.
    expect(await webhook.getByLabel('Description (optional)').inputValue()).toBe('The team’s chat');
  });
});
