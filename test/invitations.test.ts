import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import type { EventOutput } from '../src/modules/events/schemas';
import type { InvitationOutput } from '../src/domain/invitations';
import type { UserRoleOutput, WorkshopOutput } from '../src/domain/workshops';
import { useServer, useSockets, useUsers } from './helpers/cast';
import { createUser, errorOf, eventLog, expectError, seedWorkshopWith } from './helpers/factories';
import { expectFieldsRefused } from './helpers/refusals';
import { startTestServer } from './helpers/server';

const t = useServer();
const [fay, pat, guest, other] = useUsers(t, 'Fay', 'Pat', 'Guest', 'Other');
const sockets = useSockets(t);

const path = (workshopId: string) => `/v1/workshops/${workshopId}/invitations`;
const inviteAs = (workshopId: string, emails: string, user = fay, role?: string) =>
  t.request<InvitationOutput[]>('POST', path(workshopId), {
    token: user.token,
    body: { emails, content: 'Join our retro on Friday.', ...(role === undefined ? {} : { role }) },
  });
const roleIn = async (workshopId: string, userId: string) =>
  (
    await t.request<Array<{ user_id: string; role: string }>>('GET', `/v1/workshops/${workshopId}/user_roles`, {
      token: fay.token,
    })
  ).body.find((member) => member.user_id === userId)?.role;
const accept = (token: string, user = guest) =>
  t.request<{ workshop_id: string }>('POST', `/v1/invitations/${encodeURIComponent(token)}/accept`, {
    token: user.token,
  });

/** The link the last mail to `email` carries, and the mail. */
async function mailedLink(email: string) {
  const [mail] = await t.rows<{ subject: string; text: string; html: string }>(
    sql`SELECT subject, text, html FROM outbox WHERE "to" = ${email} ORDER BY rowid DESC LIMIT 1`,
  );
  const link = /(https?:\/\/\S+\/invitations\/(\S+))/.exec(mail!.text);
  return { mail: mail!, link: link![1]!, token: link![2]! };
}

describe('invitations', () => {
  it('lists the invitations of one request in the order it named them, though they share a millisecond', async () => {
    const w = await seedWorkshopWith(t, fay, [], { title: 'Ordered' });
    const emails = Array.from({ length: 12 }, (_, index) => `order-${String.fromCharCode(122 - index)}@example.test`);
    // The server's clock held still: every invitation of the request is made in one millisecond.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const created = await inviteAs(w.id, emails.join(',')).finally(() => vi.useRealTimers());
    expect(created.status).toBe(201);
    expect(created.body.map((invitation) => invitation.email)).toEqual(emails);
    const listed = (await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body;
    expect(listed.map((invitation) => invitation.email)).toEqual(emails);
  });

  it('invite addresses, each mailed a link that makes whoever opens it signed in a participant, once', async () => {
    const w = await seedWorkshopWith(t, fay, [pat], { title: 'Retro' });
    const created = await inviteAs(w.id, ` ${guest.email}, ${guest.email.toUpperCase()} ,someone-new@example.test,`);
    expect(created.status).toBe(201);
    expect(created.body).toEqual([
      { id: expect.any(String), email: guest.email, state: 'pending', role: 'participant' },
      { id: expect.any(String), email: 'someone-new@example.test', state: 'pending', role: 'participant' },
    ]);
    // Listed oldest first, those of one request as it named them.
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body).toEqual(created.body);

    const { mail, link, token } = await mailedLink(guest.email);
    expect(mail.subject).toBe('Fay invites you to “Retro”');
    expect(mail.text).toContain('Join our retro on Friday.');
    expect(link.startsWith(`${t.url}/invitations/`)).toBe(true);
    expect(mail.html).toContain('the workshop “Retro”');
    expect(mail.html).toContain(`href="${link}"`);
    // The link opens the console, which signs in and accepts (test/console.test.ts, in a browser).
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/console/assets/');

    // The link says what it is for before anyone signs in.
    const preview = await t.request('GET', `/v1/invitations/${encodeURIComponent(token)}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      workshop_title: 'Retro',
      invited_by: 'Fay',
      email: guest.email,
      state: 'pending',
      role: 'participant',
    });
    expect(mail.text).not.toContain('co-facilitator');
    expectError(await t.request('GET', '/v1/invitations/no-such-link'), 404, 'not_found');

    expectError(await t.request('GET', `/v1/workshops/${w.id}`, { token: guest.token }), 404, 'not_found');
    expect((await accept(token)).body).toEqual({ workshop_id: w.id });
    // The workshop's answer names the caller's role.
    const opened = await fetch(`${t.url}/v1/workshops/${w.id}`, {
      headers: { authorization: `Bearer ${guest.token}` },
    });
    expect(opened.headers.get('x-workshop-role')).toBe('participant');
    const facilitating = await fetch(`${t.url}/v1/workshops/${w.id}`, {
      headers: { authorization: `Bearer ${fay.token}` },
    });
    expect(facilitating.headers.get('x-workshop-role')).toBe('facilitator');
    expect((await t.request<WorkshopOutput>('GET', `/v1/workshops/${w.id}`, { token: guest.token })).status).toBe(200);
    const listed = (await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body;
    expect(listed.find((i) => i.email === guest.email)?.state).toBe('accepted');
    expectError(await accept(token), 409, 'invitation_used');
    expectError(await accept(token, other), 409, 'invitation_used');
    expect((await eventLog(t, w.id)).map((e) => e.action)).toEqual([
      'addInvitation',
      'addInvitation',
      'addMember',
      'updateInvitation',
    ]);
  });

  it('invite as a co-facilitator: the role stored, listed, mailed, previewed, logged, and given on acceptance', async () => {
    const w = await seedWorkshopWith(t, fay, [pat], { title: 'Co-run' });
    const created = await inviteAs(w.id, other.email, fay, 'facilitator');
    expect(created.status).toBe(201);
    expect(created.body).toEqual([
      { id: expect.any(String), email: other.email, state: 'pending', role: 'facilitator' },
    ]);
    const id = created.body[0]!.id;
    expect(await t.rows(sql`SELECT role FROM invitations WHERE id = ${id}`)).toEqual([{ role: 'facilitator' }]);
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body).toEqual(created.body);

    const { mail, token } = await mailedLink(other.email);
    expect(mail.subject).toBe('Fay invites you to “Co-run” as a co-facilitator');
    expect(mail.text).toContain('Fay invites you to the workshop “Co-run” as a co-facilitator.');
    const preview = await t.request('GET', `/v1/invitations/${encodeURIComponent(token)}`);
    expect(preview.body).toEqual({
      workshop_title: 'Co-run',
      invited_by: 'Fay',
      email: other.email,
      state: 'pending',
      role: 'facilitator',
    });

    expect((await accept(token, other)).body).toEqual({ workshop_id: w.id });
    expect(await roleIn(w.id, other.id)).toBe('facilitator');
    const opened = await fetch(`${t.url}/v1/workshops/${w.id}`, {
      headers: { authorization: `Bearer ${other.token}` },
    });
    expect(opened.headers.get('x-workshop-role')).toBe('facilitator');
    // Facilitating at once: the new co-facilitator invites in turn.
    expect((await inviteAs(w.id, 'next@example.test', other)).status).toBe(201);
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body[0]).toEqual({
      id,
      email: other.email,
      state: 'accepted',
      role: 'facilitator',
    });

    const log = await eventLog(t, w.id);
    const changeOf = (action: string) => log.find((e) => e.action === action)?.change as Record<string, unknown>;
    expect(log.map((e) => e.action)).toEqual(['addInvitation', 'addMember', 'updateInvitation', 'addInvitation']);
    expect(changeOf('addInvitation')).toEqual({
      invitation: { id, email: other.email, state: 'pending', role: 'facilitator' },
    });
    expect(changeOf('addMember')).toMatchObject({ member: { user_id: other.id, role: 'facilitator' } });
    expect(changeOf('updateInvitation')).toMatchObject({
      invitation: { id, state: 'accepted', role: 'facilitator' },
      changes: { state: ['pending', 'accepted'] },
    });
  });

  it('invite as participants by default and when asked, and refuse any other role with a 400, changing nothing', async () => {
    const w = await seedWorkshopWith(t, fay, []);
    expect((await inviteAs(w.id, 'plain@example.test')).body[0]?.role).toBe('participant');
    expect((await inviteAs(w.id, 'asked@example.test', fay, 'participant')).body[0]?.role).toBe('participant');
    const before = (await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body;
    const mails = async () => (await t.rows(sql`SELECT id FROM outbox`)).length;
    const mailed = await mails();

    const send = (body: unknown) => t.request('POST', path(w.id), { token: fay.token, body });
    const base = { emails: 'refused@example.test', content: 'Come' };
    await expectFieldsRefused(send, [
      [{ ...base, role: 'admin' }, 'role'],
      [{ ...base, role: 'Facilitator' }, 'role'],
      [{ ...base, role: 'guest' }, 'role'],
      [{ ...base, role: 1 }, 'role'],
      [{ ...base, role: null }, 'role'],
    ]);
    // The contract's error shape, and nothing else.
    const refused = await send({ ...base, role: 'owner' });
    expect(Object.keys(refused.body as object)).toEqual(['error']);
    expect(errorOf(refused)).toEqual({
      code: 'invalid_request',
      message: expect.any(String),
      details: [{ path: 'role', message: 'Expected participant or facilitator.' }],
    });
    // A bad role refuses the whole request, the pending invitations of its addresses untouched.
    expectError(await inviteAs(w.id, 'plain@example.test', fay, 'boss'), 400, 'invalid_request');
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body).toEqual(before);
    expect(await mails()).toBe(mailed);
    // Only facilitators invite, as participants or co-facilitators.
    const member = await seedWorkshopWith(t, fay, [pat]);
    expectError(await inviteAs(member.id, 'x@example.test', pat, 'facilitator'), 403, 'forbidden');
  });

  it('send a pending invitation again with the role asked now, and keep it on a resend', async () => {
    const w = await seedWorkshopWith(t, fay, []);
    const [first] = (await inviteAs(w.id, 'change@example.test')).body;
    const [again] = (await inviteAs(w.id, 'change@example.test', fay, 'facilitator')).body;
    expect(again).toEqual({ ...first, role: 'facilitator' });
    expect((await mailedLink('change@example.test')).mail.subject).toContain('as a co-facilitator');
    expect((await t.request('POST', `${path(w.id)}/${first!.id}/resend`, { token: fay.token })).status).toBe(204);
    expect((await mailedLink('change@example.test')).mail.subject).toContain('as a co-facilitator');
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body).toEqual([again]);
    const updates = (await eventLog(t, w.id)).filter((e) => e.action === 'updateInvitation');
    expect(updates.map((e) => Object.keys((e.change as { changes: object }).changes))).toEqual([
      ['sent_at', 'role'],
      ['sent_at'],
    ]);
    expect((updates[0]!.change as { changes: Record<string, unknown> }).changes.role).toEqual([
      'participant',
      'facilitator',
    ]);
  });

  it('make a participant who accepts an invitation to facilitate a facilitator, and leave facilitators as they are', async () => {
    const w = await seedWorkshopWith(t, fay, []);
    await inviteAs(w.id, other.email, fay, 'facilitator');
    await inviteAs(w.id, guest.email);
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${w.id}/access_code`, { token: fay.token })
    ).body;
    // Both joined with the code meanwhile, as participants.
    for (const user of [other, guest]) {
      const joined = await t.request('POST', '/v1/workshops/join', { token: user.token, body: { access_code } });
      expect(joined.status).toBe(200);
    }
    expect((await accept((await mailedLink(other.email)).token, other)).status).toBe(200);
    expect(await roleIn(w.id, other.id)).toBe('facilitator');
    const promoted = (await eventLog(t, w.id)).find((e) => e.action === 'updateMember');
    expect(promoted?.change).toMatchObject({
      member: { user_id: other.id, role: 'facilitator' },
      changes: { role: ['participant', 'facilitator'] },
    });
    // A participant invitation changes no one's role: the participant stays one, a facilitator too.
    expect((await accept((await mailedLink(guest.email)).token, guest)).status).toBe(200);
    expect(await roleIn(w.id, guest.id)).toBe('participant');
    await inviteAs(w.id, 'fay-again@example.test');
    expect((await accept((await mailedLink('fay-again@example.test')).token, fay)).status).toBe(200);
    expect(await roleIn(w.id, fay.id)).toBe('facilitator');
  });

  it('keep guests from accepting an invitation to facilitate: the link stays unused', async () => {
    const w = await seedWorkshopWith(t, fay, []);
    await inviteAs(w.id, 'for-a-guest@example.test', fay, 'facilitator');
    const { token } = await mailedLink('for-a-guest@example.test');
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${w.id}/access_code`, { token: fay.token })
    ).body;
    const joined = await t.request<{ token: string; user: { id: string } }>('POST', '/v1/workshops/join/guest', {
      body: { access_code, name: 'Gus' },
    });
    expectError(
      await t.request('POST', `/v1/invitations/${encodeURIComponent(token)}/accept`, { token: joined.body.token }),
      403,
      'forbidden',
    );
    expect(await roleIn(w.id, joined.body.user.id)).toBe('participant');
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body[0]?.state).toBe(
      'pending',
    );
  });

  it('resend replaces the link, and delete kills it', async () => {
    const w = await seedWorkshopWith(t, fay, []);
    const [invitation] = (await inviteAs(w.id, 'late@example.test')).body;
    const first = (await mailedLink('late@example.test')).token;
    expect((await t.request('POST', `${path(w.id)}/${invitation!.id}/resend`, { token: fay.token })).status).toBe(204);
    const second = (await mailedLink('late@example.test')).token;
    expect(second).not.toBe(first);
    expectError(await accept(first, other), 404, 'not_found');
    expect((await t.request('DELETE', `${path(w.id)}/${invitation!.id}`, { token: fay.token })).status).toBe(204);
    expectError(await accept(second, other), 404, 'not_found');
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body).toEqual([]);
    // Inviting a pending address again sends it again: still one pending invitation.
    await inviteAs(w.id, 'twice@example.test');
    await inviteAs(w.id, 'twice@example.test');
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body).toHaveLength(1);
  });

  it('refuses members, bad addresses, participants, and archived workshops, changing nothing', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    expectError(await inviteAs(w.id, `new@example.test, ${pat.email}`), 409, 'already_member');
    expectError(await inviteAs(w.id, 'not an address'), 400, 'invalid_request');
    expectError(await inviteAs(w.id, ' , '), 400, 'invalid_request');
    expectError(await inviteAs(w.id, 'x@example.test', pat), 403, 'forbidden');
    expect((await t.request<InvitationOutput[]>('GET', path(w.id), { token: fay.token })).body).toEqual([]);

    await inviteAs(w.id, other.email);
    const { token } = await mailedLink(other.email);
    expect(
      (await t.request('PUT', `/v1/workshops/${w.id}`, { token: fay.token, body: { state: 'archived' } })).status,
    ).toBe(200);
    expectError(await inviteAs(w.id, 'later@example.test'), 409, 'workshop_archived');
    expectError(await accept(token, other), 409, 'workshop_archived');
  });

  it('reach facilitators live, and participants only as a bare sequence number', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    const facilitatorSocket = await sockets.joined(fay, w.id);
    const participantSocket = await sockets.joined(pat, w.id);
    await inviteAs(w.id, 'live@example.test');
    const full = await facilitatorSocket.next('workshop:event', (p) => p.action === 'addInvitation');
    expect(full).toMatchObject({
      seq: 1,
      workshop_id: w.id,
      change: { invitation: { email: 'live@example.test', state: 'pending', role: 'participant' } },
    });
    expect(await participantSocket.next('workshop:event', (p) => p.action === 'addInvitation')).toEqual({
      seq: 1,
      workshop_id: w.id,
      action: 'addInvitation',
    });
  });

  it('keep invitations (e-mail addresses) out of participants’ view of the log', async () => {
    const w = await seedWorkshopWith(t, fay, [pat]);
    await inviteAs(w.id, 'private@example.test');
    const asParticipant = (await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events`, { token: pat.token }))
      .body;
    const asFacilitator = (await t.request<EventOutput[]>('GET', `/v1/workshops/${w.id}/events`, { token: fay.token }))
      .body;
    expect(asParticipant.map((e) => e.action)).toEqual([]);
    expect(asFacilitator.map((e) => e.action)).toEqual(['addInvitation']);
  });
});

describe('invitations and the attendee limit', () => {
  it('refuse a participant’s acceptance past the owner’s plan, not a co-facilitator’s, nor their seat once made a participant', async () => {
    const small = await startTestServer({
      plans: { free: { name: 'free', workshops_max_attendees: 1 }, team: { name: 'team', workshops_max_attendees: 1 } },
    });
    try {
      const signup = async (name: string) => {
        const res = await small.request<{ token: string; user: { id: string } }>('POST', '/v1/auth/signup', {
          body: { email: `${name}@limit.test`, password: 'long enough', name },
        });
        return res.body.token;
      };
      const [owner, first, second, third] = [
        await signup('owner'),
        await signup('first'),
        await signup('second'),
        await signup('third'),
      ];
      const w = (
        await small.request<WorkshopOutput>('POST', '/v1/workshops', { token: owner, body: { title: 'Small' } })
      ).body;
      await small.request('POST', path(w.id), {
        token: owner,
        body: { emails: 'first@limit.test, second@limit.test', content: 'Come' },
      });
      const tokenFor = async (email: string) =>
        /\/invitations\/(\S+)/.exec(
          (
            await small.rows<{ text: string }>(sql`SELECT text FROM outbox WHERE "to" = ${email} ORDER BY rowid DESC`)
          )[0]!.text,
        )![1]!;
      expect(
        (await small.request('POST', `/v1/invitations/${await tokenFor('first@limit.test')}/accept`, { token: first }))
          .status,
      ).toBe(200);
      expectError(
        await small.request('POST', `/v1/invitations/${await tokenFor('second@limit.test')}/accept`, { token: second }),
        409,
        'attendee_limit_reached',
      );
      // Facilitators are not attendees: an invitation to co-facilitate is accepted past the limit.
      await small.request('POST', path(w.id), {
        token: owner,
        body: { emails: 'third@limit.test', content: 'Run it with me', role: 'facilitator' },
      });
      expect(
        (await small.request('POST', `/v1/invitations/${await tokenFor('third@limit.test')}/accept`, { token: third }))
          .status,
      ).toBe(200);
      // …but made a participant afterwards, they would take the seat there is not: refused, unchanged.
      const roles = (await small.request<UserRoleOutput[]>('GET', `/v1/workshops/${w.id}/user_roles`, { token: owner }))
        .body;
      const thirds = roles.find((role) => role.role === 'facilitator' && role.name === 'third')!;
      expectError(
        await small.request('PUT', `/v1/workshops/${w.id}/user_roles/${thirds.id}`, {
          token: owner,
          body: { role: 'participant' },
        }),
        409,
        'attendee_limit_reached',
      );
      const after = (await small.request<UserRoleOutput[]>('GET', `/v1/workshops/${w.id}/user_roles`, { token: owner }))
        .body;
      expect(after.find((role) => role.id === thirds.id)?.role).toBe('facilitator');
    } finally {
      await small.close();
    }
  });

  it("limits the invitation mails one user's requests send in a day, counting sends again, and refuses a batch whole", async () => {
    const limited = await startTestServer({ invitationMailsPerDay: 3 });
    try {
      const [host, member] = [await createUser(limited, 'Host'), await createUser(limited, 'Member')];
      const w = await seedWorkshopWith(limited, host, []);
      const invite = (emails: string) =>
        limited.request<InvitationOutput[]>('POST', path(w.id), {
          token: host.token,
          body: { emails, content: 'Come' },
        });
      const mails = async () =>
        Number((await limited.rows<{ n: number }>(sql`SELECT count(*) AS n FROM outbox`))[0]!.n);
      const [first] = (await invite('a@example.test, b@example.test')).body;
      expect((await limited.request('POST', `${path(w.id)}/${first!.id}/resend`, { token: host.token })).status).toBe(
        204,
      );
      const before = await mails();
      // Two more would make five: refused whole, nothing mailed, nothing created.
      const refused = await invite('c@example.test, d@example.test');
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(80_000);
      expect(await mails()).toBe(before);
      expect((await limited.request<InvitationOutput[]>('GET', path(w.id), { token: host.token })).body).toHaveLength(
        2,
      );
      // Organization invitations draw on the same budget; other users have their own.
      const org = (
        await limited.request<{ id: string }>('POST', '/v1/organizations', { token: host.token, body: { name: 'Org' } })
      ).body;
      expectError(
        await limited.request('POST', `/v1/organizations/${org.id}/members`, {
          token: host.token,
          body: { email: 'e@example.test', role: 'facilitator' },
        }),
        429,
        'rate_limited',
      );
      const other = await seedWorkshopWith(limited, member, []);
      expect(
        (
          await limited.request('POST', path(other.id), {
            token: member.token,
            body: { emails: 'f@example.test', content: 'Hi' },
          })
        ).status,
      ).toBe(201);
    } finally {
      await limited.close();
    }
  });
});
