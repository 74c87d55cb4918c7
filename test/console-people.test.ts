import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, mailedLink, openConsoleWithToken, PHONE } from './helpers/console';
import { SDK_PASSWORD, sdkUser, sdkWorkshop } from './helpers/sdk';

/*
 * The console's People tab (docs/pages.md#the-console) in a real chromium, against a real server:
 * members' roles changed from the page (guests marked, and kept participants), and invitations
 * sent by mail, as participants or co-facilitators, listed with their role and state, sent again
 * and deleted, each list following changes made elsewhere without a reload.
 */

async function openPeople(page: Page, baseUrl: string, id: string, token: string) {
  await openConsoleWithToken(page, baseUrl, token, `/workshops/${id}?tab=people`);
  await page.getByRole('heading', { name: 'Members' }).waitFor();
}

describe.skipIf(!browserAvailable)('the console: people', () => {
  const t = useServer();
  const browser = useBrowser();

  it('changes members’ roles, marks guests, and follows joins and role changes made elsewhere', async () => {
    const fay = await sdkUser(t, 'Fay');
    const pat = await sdkUser(t, 'Pat');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [pat.api], 'Roles');
    const { page, problems } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await openPeople(page, t.url, id, fay.api.token!);
    const row = (userId: string) => page.locator(`.member-row[data-member="${userId}"]`);
    await shown(page, `.member-row[data-member="${pat.id}"] .member-role`, 'Participant');
    await shown(page, `.member-row[data-member="${fay.id}"] .member-role`, 'Facilitator');

    // A guest who joins shows up live, marked, and is not offered the facilitator's role.
    const { access_code } = await fay.api.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
    const guest = await t.request<{ user: { id: string } }>('POST', '/v1/workshops/join/guest', {
      body: { access_code, name: 'Gus' },
    });
    expect(guest.status).toBe(201);
    await shown(page, `.member-row[data-member="${guest.body.user.id}"] .badge`, 'Guest');
    expect(await row(guest.body.user.id).getByRole('button').count()).toBe(0);

    await row(pat.id)
      .getByRole('button', { name: /^Make facilitator/ })
      .click();
    await shown(page, `.member-row[data-member="${pat.id}"] .member-role`, 'Facilitator');
    const roles = async () =>
      Object.fromEntries(
        (await fay.api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop)).map((r) => [r.user_id, r.role]),
      );
    expect(await roles()).toEqual({
      [fay.id]: 'facilitator',
      [pat.id]: 'facilitator',
      [guest.body.user.id]: 'participant',
    });
    await expectAccessible(page, 'the people tab');

    // A change made elsewhere (Fay's other device) shows without a reload.
    const patRole = (await fay.api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop)).find(
      (r) => r.user_id === pat.id,
    )!;
    await fay.api.put('/v1/workshops/{workshop_id}/user_roles/{id}', {
      params: { path: { workshop_id: id, id: patRole.id } },
      body: { role: 'participant' },
    });
    await shown(page, `.member-row[data-member="${pat.id}"] .member-role`, 'Participant');

    // The last facilitator cannot step down: the service's refusal is shown.
    await row(fay.id).getByRole('button', { name: 'Make yourself a participant' }).click();
    await row(fay.id).getByRole('button', { name: 'Make me a participant' }).click();
    await shown(page, '.people .problem', /last facilitator/);
    expect((await roles())[fay.id]).toBe('facilitator');
    expect(problems.errors).toEqual([]);
  });

  it('sends invitations by mail, lists them with their state, sends one again and deletes one', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [], 'Invited');
    const { page, problems } = await browser.newPage(PHONE);
    page.setDefaultTimeout(8000);
    await openPeople(page, t.url, id, fay.api.token!);
    const stamp = `${process.pid}-${Date.now()}`;
    const [ann, bob] = [`ann-${stamp}@example.test`, `bob-${stamp}@example.test`];

    // A refusal first, in the service's words: one of the addresses is not one, and it says which.
    const form = page.getByRole('form', { name: 'Invite by e-mail' });
    await form.getByLabel('E-mail addresses').fill(`${ann}, not an address`);
    await form.getByLabel('Message').fill('Join our retro on Friday.');
    await form.getByRole('button', { name: 'Send invitations' }).click();
    await shown(
      page,
      '.invite-form .problem',
      'Not an e-mail address: not an address (separate addresses with commas).',
    );

    await form.getByLabel('E-mail addresses').fill(`${ann}, ${bob.toUpperCase()}`);
    await form.getByRole('button', { name: 'Send invitations' }).click();
    await shown(page, '.invite-form .done', `Invitations sent to ${ann}, ${bob}.`);
    const invitation = (email: string) => page.locator(`.invitation-row[data-email="${email}"]`);
    await shown(page, `.invitation-row[data-email="${ann}"] .state`, 'Waiting for an answer');
    await shown(page, `.invitation-row[data-email="${bob}"] .state`, 'Waiting for an answer');
    const first = await mailedLink(t, ann, '/invitations/');
    await mailedLink(t, bob, '/invitations/');
    await expectAccessible(page, 'the people tab on a phone, with invitations');

    // Sent again: a new link, the first one dead.
    await invitation(ann)
      .getByRole('button', { name: `Send again to ${ann}` })
      .click();
    await shown(page, '.invitations-status', `Sent again to ${ann}.`);
    await expect.poll(() => mailedLink(t, ann, '/invitations/')).not.toBe(first);

    await invitation(bob).getByRole('button', { name: 'Delete' }).click();
    await invitation(bob).getByRole('button', { name: 'Delete invitation' }).click();
    await expect.poll(() => page.locator('.invitation-row').count()).toBe(1);
    const listed = await fay.api.get('/v1/workshops/{workshop_id}/invitations', inWorkshop);
    expect(listed.map(({ email, state }) => ({ email, state }))).toEqual([{ email: ann, state: 'pending' }]);

    // Ann accepts from her own account: the invitation and the members follow without a reload.
    const annUser = await sdkUser(t, 'Ann');
    const token = new URL(await mailedLink(t, ann, '/invitations/')).pathname.split('/').pop()!;
    await annUser.api.post('/v1/invitations/{token}/accept', { params: { path: { token } } });
    await shown(page, `.invitation-row[data-email="${ann}"] .state`, 'Accepted');
    await shown(page, `.member-row[data-member="${annUser.id}"] .member-role`, 'Participant');
    expect(problems.errors).toEqual([]);
  });
  it('invites a co-facilitator, who accepts from the link in their own browser and joins as a facilitator', async () => {
    const fay = await sdkUser(t, 'Fay');
    const cora = await sdkUser(t, 'Cora');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [], 'Co-run');
    const { page, problems } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await openPeople(page, t.url, id, fay.api.token!);

    const form = page.getByRole('form', { name: 'Invite by e-mail' });
    expect(await form.getByLabel('Participant').isChecked()).toBe(true);
    await form.getByLabel('E-mail addresses').fill(cora.email);
    await form.getByLabel('Message').fill('Run the retro with me.');
    await form.getByLabel('Co-facilitator').check();
    await form.getByRole('button', { name: 'Send invitations' }).click();
    await shown(page, '.invite-form .done', `Invitation sent to ${cora.email}, as a co-facilitator.`);
    await shown(page, `.invitation-row[data-email="${cora.email}"] .role`, 'Co-facilitator');
    await shown(page, `.invitation-row[data-email="${cora.email}"] .state`, 'Waiting for an answer');
    await expectAccessible(page, 'the people tab, a co-facilitator invited');

    // Cora opens the mailed link signed out: it says what she is invited as, and she signs in.
    const other = await browser.newPage(LAPTOP);
    other.page.setDefaultTimeout(8000);
    await other.page.goto(await mailedLink(t, cora.email, '/invitations/'));
    await shown(
      other.page,
      '.notice',
      'Fay invites you to the workshop “Co-run” as a co-facilitator. Sign in or create an account to accept the invitation.',
    );
    expect(await other.page.getByLabel('E-mail address').inputValue()).toBe(cora.email);
    await other.page.getByLabel('Password').fill(SDK_PASSWORD);
    await other.page.getByRole('button', { name: 'Sign in' }).last().click();
    // Accepted, she lands in the workshop's console, as its facilitators do.
    await other.page.waitForURL(`**/workshops/${id}`);
    await other.page.getByRole('heading', { level: 1, name: 'Co-run' }).waitFor();
    await other.page.getByRole('navigation', { name: 'Workshop' }).getByRole('link', { name: 'People' }).click();
    await shown(other.page, `.member-row[data-member="${cora.id}"] .member-role`, 'Facilitator');

    // Fay's page follows without a reload: the invitation accepted, Cora a facilitator.
    await shown(page, `.invitation-row[data-email="${cora.email}"] .state`, 'Accepted');
    await shown(page, `.invitation-row[data-email="${cora.email}"] .role`, 'Co-facilitator');
    await shown(page, `.member-row[data-member="${cora.id}"] .member-role`, 'Facilitator');
    const roles = await fay.api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop);
    expect(roles.map((role) => [role.name, role.role])).toEqual([
      ['Fay', 'facilitator'],
      ['Cora', 'facilitator'],
    ]);
    expect(problems.errors).toEqual([]);
    expect(other.problems.errors).toEqual([]);
  });
});
