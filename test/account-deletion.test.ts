import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { InferOutput } from 'valibot';
import type { NativeDocument } from '../src/modules/exports/native-schema';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { UserRoleOutput, WorkshopOutput } from '../src/domain/workshops';
import type { CardOutput } from '../src/domain/cards';
import type { VoteOutput } from '../src/domain/votes';
import type { RatingOutput } from '../src/domain/ratings';
import type { CommentOutput } from '../src/domain/comments';
import type { ItemOutput } from '../src/domain/items';
import type { EventOutput } from '../src/modules/events/schemas';
import type { AccountDeletionPreview } from '../src/modules/account-deletion/schemas';
import type { OrganizationMemberOutput } from '../src/modules/organizations/schemas';
import type { ApiTokenOutput } from '../src/modules/api-tokens/schemas';
import type { CreatedWebhookOutput } from '../src/modules/webhooks/schemas';
import type { SessionOutput } from '../src/modules/auth/schemas';
import type { UserOutput } from '../src/modules/users/schemas';
import { createClient, type WorkshopClient } from '../client-sdk/src/index';
import type { LiveWorkshop } from '../client-sdk/src/live';
import { requestsOn, workshopJoinedBy, writtenBy } from './helpers/requests';
import { useInstances, useLiveWorkshops, useRedis, useServer, useSockets } from './helpers/cast';
import {
  createConfirmedUser,
  createUser,
  expectError,
  multipart,
  pngImage,
  seedCurrentStep,
  type TestUser,
} from './helpers/factories';
import { exported, lineAfter, records, rowWith, workbookOf, zipText } from './helpers/exports';
import { readPdf } from './helpers/pdf';
import { startWebhookReceiver } from './helpers/webhook-receiver';
import { redisAvailable } from './helpers/redis';
import type { TestServer } from './helpers/server';
import { until } from './helpers/wait';

/*
 * Deleting an account (docs/api.md#an-accounts-life). The person is gone at once everywhere; what
 * they wrote in other people's workshops stays, shown as a deleted user on every channel (REST,
 * live events and their replays, every export format, the event log, webhooks); their votes stay
 * counted; their personal workshops pass on or go; the preview says beforehand what happens.
 */

const WEBHOOKS = {
  retryScheduleS: [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2],
  disableAfterHours: 72,
  allowPrivate: true,
  leaseMs: 60_000,
};
const t = useServer({ webhooks: WEBHOOKS });
const sockets = useSockets(t);
const openLive = useLiveWorkshops();

const PASSWORD = 'correct horse battery';
/** The name of whoever leaves: it must appear nowhere once they are gone. */
const LEAVER = 'Delphine Vanishwell';

const as = requestsOn(t);

const deleteAccount = (user: TestUser, body: unknown = { password: PASSWORD }) =>
  t.request('DELETE', '/v1/user/me', { token: user.token, body });
const preview = (user: TestUser) => as<AccountDeletionPreview>(user, 'GET', '/v1/user/me/deletion');
const works = async (token: string) => (await t.request('GET', '/v1/user/me', { token })).status;
const login = (email: string) =>
  t.request<InferOutput<typeof SessionOutput>>('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });

/** Makes `user` a facilitator of the workshop (they joined it as a participant). */
async function promote(owner: TestUser, workshopId: string, user: TestUser): Promise<void> {
  const roles = await as<UserRoleOutput[]>(owner, 'GET', `/v1/workshops/${workshopId}/user_roles`);
  const member = roles.find((role) => role.user_id === user.id)!;
  await as(owner, 'PUT', `/v1/workshops/${workshopId}/user_roles/${member.id}`, { role: 'facilitator' });
}

async function organizationOf(admin: TestUser, name: string): Promise<OrganizationOutput> {
  return as<OrganizationOutput>(admin, 'POST', '/v1/organizations', { name });
}

/** The SDK's client for `user` on `server`. */
function sdkOf(user: TestUser, server: TestServer = t): WorkshopClient {
  const api = createClient({ baseUrl: server.url });
  api.setToken(user.token);
  return api;
}

/** The workshop's cards as REST lists them to `api`'s user now. */
const cardsOverRest = (api: WorkshopClient, workshopId: string) =>
  api.get('/v1/workshops/{workshop_id}/cards', { params: { path: { workshop_id: workshopId } } });

/** The card `cardId` as the live state holds it. */
const heldCard = (live: LiveWorkshop, cardId: string) => live.state.cards.find((card) => card.id === cardId);

/** The actions of the workshop's log, oldest first. */
async function actionsLogged(reader: TestUser, workshopId: string): Promise<string[]> {
  const log = await as<EventOutput[]>(reader, 'GET', `/v1/workshops/${workshopId}/events?per_page=100`);
  return log.map((event) => event.action).reverse();
}

describe('deleting an account: refusals change nothing', () => {
  it('a wrong password answers 401 invalid_credentials, and the account, its sessions and workshops stay', async () => {
    const user = await createUser(t, 'Careful');
    const workshop = await as<WorkshopOutput>(user, 'POST', '/v1/workshops', { title: 'Mine' });
    expectError(await deleteAccount(user, { password: 'not my password' }), 401, 'invalid_credentials');
    expect(await works(user.token)).toBe(200);
    expect((await login(user.email)).status).toBe(200);
    expect((await t.request('GET', `/v1/workshops/${workshop.id}`, { token: user.token })).status).toBe(200);
  });

  it('an account with a password sending none gets 400, a malformed body 400, and stays', async () => {
    const user = await createUser(t, 'Forgetful');
    expectError(await deleteAccount(user, {}), 400, 'invalid_request');
    expectError(await deleteAccount(user, { password: 42 }), 400, 'invalid_request');
    expect(await works(user.token)).toBe(200);
  });

  it('an account without a password needs a sign-in within 10 minutes: 403 reauthentication_required after, 204 right after one', async () => {
    const user = await createUser(t, 'Provider person');
    const { users, authTokens } = t.tables;
    await t.write((tx) => tx.update(users).set({ passwordHash: null }).where(eq(users.id, user.id)));
    const longAgo = new Date(Date.now() - 11 * 60_000).toISOString();
    await t.write((tx) => tx.update(authTokens).set({ createdAt: longAgo }).where(eq(authTokens.userId, user.id)));
    expect(await preview(user)).toMatchObject({ password_required: false, reauthentication_required: true });
    expectError(await deleteAccount(user, {}), 403, 'reauthentication_required');
    expect(await works(user.token)).toBe(200);

    const now = new Date().toISOString();
    await t.write((tx) => tx.update(authTokens).set({ createdAt: now }).where(eq(authTokens.userId, user.id)));
    expect(await preview(user)).toMatchObject({ password_required: false, reauthentication_required: false });
    expect((await deleteAccount(user, {})).status).toBe(204);
    expect(await works(user.token)).toBe(401);
  });

  it('the only admin of an organization with other members gets 409 last_admin, and nothing changes', async () => {
    const admin = await createConfirmedUser(t, 'Sole admin');
    const colleague = await createConfirmedUser(t, 'Colleague');
    const organization = await organizationOf(admin, 'Busy org');
    await as(admin, 'POST', `/v1/organizations/${organization.id}/members`, {
      email: colleague.email,
      role: 'facilitator',
    });
    const workshop = await as<WorkshopOutput>(admin, 'POST', '/v1/workshops', { title: 'Kept' });
    expect((await preview(admin)).last_admin_of).toEqual([{ id: organization.id, name: 'Busy org' }]);

    expectError(await deleteAccount(admin), 409, 'last_admin');
    expect(await works(admin.token)).toBe(200);
    expect((await t.request('GET', `/v1/workshops/${workshop.id}`, { token: admin.token })).status).toBe(200);
    expect((await t.request('GET', `/v1/organizations/${organization.id}`, { token: admin.token })).status).toBe(200);
  });

  it('a guest is refused with 403 forbidden', async () => {
    const host = await createUser(t, 'Host');
    const workshop = await workshopJoinedBy(t, host, []);
    const { access_code } = await as<{ access_code: string }>(host, 'GET', `/v1/workshops/${workshop.id}/access_code`);
    const guest = await t.request<{ token: string }>('POST', '/v1/workshops/join/guest', {
      body: { access_code, name: 'Gus' },
    });
    const res = await t.request('DELETE', '/v1/user/me', { token: guest.body.token, body: { password: 'anything' } });
    expectError(res, 403, 'forbidden');
    expect(await works(guest.body.token)).toBe(200);
  });
});

describe('deleting an account: the person is gone at once', () => {
  it('their token stops at once, their live socket closes, their API token and avatar go, login fails, and the address can sign up again', async () => {
    const user = await createConfirmedUser(t, 'Leaving');
    const apiToken = await as<{ token: string }>(user, 'POST', '/v1/user/me/api_tokens', {
      name: 'CI',
      scopes: ['workshops:read'],
    });
    const avatar = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: user.token,
      rawBody: multipart('avatar', await pngImage(8, 8), { name: 'me.png', type: 'image/png' }),
    });
    expect((await fetch(avatar.body.avatar_url!)).status).toBe(200);
    const readsWorkshops = async () =>
      (await t.request('GET', '/v1/user/me/workshops', { token: apiToken.token })).status;
    expect(await readsWorkshops()).toBe(200);
    const other = (await login(user.email)).body.token;
    const live = await sockets.connected({ ...user, token: other });
    const ended = new Promise<string>((resolve) => live.socket.once('disconnect', resolve));

    expect((await deleteAccount(user)).status).toBe(204);
    expect(await works(user.token)).toBe(401);
    expect(await works(other)).toBe(401);
    expect(await readsWorkshops()).toBe(401);
    expect(await ended).toBe('io server disconnect');
    expect((await fetch(avatar.body.avatar_url!)).status).toBe(404);
    expectError(await login(user.email), 401, 'invalid_credentials');
    const again = await t.request('POST', '/v1/auth/signup', {
      body: { email: user.email, password: PASSWORD, name: 'Someone new' },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);

    const [row] = await t.rows<{
      email: string | null;
      name: string;
      password_hash: string | null;
      deleted_at: string;
    }>(sql`select email, name, password_hash, deleted_at from users where id = ${user.id}`);
    expect(row).toMatchObject({ email: null, name: '', password_hash: null });
    expect(row!.deleted_at).toBeTruthy();
  });

  it('their provider identities, the invitations they sent still pending, the seats waiting for their address and their notifications go; others’ stay', async () => {
    const admin = await createConfirmedUser(t, 'Seat giver');
    const host = await createUser(t, 'Host');
    // Unconfirmed: a seat added for the address waits for it.
    const leaver = await createUser(t, LEAVER);
    const organization = await organizationOf(admin, 'Waiting org');
    await as(admin, 'POST', `/v1/organizations/${organization.id}/members`, {
      email: leaver.email,
      role: 'facilitator',
    });
    const workshop = await workshopJoinedBy(t, host, [leaver]);
    const base = `/v1/workshops/${workshop.id}`;
    const step = await as<{ id: string }>(host, 'POST', `${base}/steps`, { name: 'Collect' });
    await as(host, 'PUT', base, { current_step_id: step.id });
    await promote(host, workshop.id, leaver);
    await as(leaver, 'POST', `${base}/invitations`, { emails: 'friend-of-leaver@example.test', content: 'Come' });
    await as(host, 'POST', `${base}/invitations`, { emails: 'friend-of-host@example.test', content: 'Come' });
    const { userIdentities } = t.tables;
    await t.write((tx) =>
      tx.insert(userIdentities).values({
        userId: leaver.id,
        issuer: 'https://id.example.test',
        subject: `subject-${leaver.id}`,
        email: leaver.email,
      }),
    );
    const identities = () => t.rows(sql`select id from user_identities where user_id = ${leaver.id}`);
    const invitations = async () =>
      (await t.rows<{ email: string }>(sql`select email from invitations where workshop_id = ${workshop.id}`))
        .map((invitation) => invitation.email)
        .sort();
    const seats = async () =>
      (
        await t.rows<{ email: string }>(
          sql`select email from organization_members where organization_id = ${organization.id}`,
        )
      )
        .map((seat) => seat.email)
        .sort();
    const notifications = () => t.rows(sql`select id from notifications where user_id = ${leaver.id}`);
    expect(await identities()).toHaveLength(1);
    expect(await invitations()).toEqual(['friend-of-host@example.test', 'friend-of-leaver@example.test']);
    expect(await seats()).toEqual([admin.email, leaver.email].sort());
    expect((await notifications()).length).toBeGreaterThan(0);

    expect((await deleteAccount(leaver)).status).toBe(204);

    expect(await identities()).toEqual([]);
    expect(await invitations()).toEqual(['friend-of-host@example.test']);
    expect(await seats()).toEqual([admin.email]);
    expect(await notifications()).toEqual([]);
  });
});

describe('deleting an account: clients connected before it', () => {
  it('are told to read the workshop again; the SDK’s live state then holds the card, ratings and members as REST reads them', async () => {
    const fay = await createUser(t, 'Fay Host');
    const leaver = await createUser(t, LEAVER);
    const workshop = await workshopJoinedBy(t, fay, [leaver]);
    const untouched = await workshopJoinedBy(t, fay, [], { title: 'Untouched' });
    const base = `/v1/workshops/${workshop.id}`;
    const card = await as<CardOutput>(leaver, 'POST', `${base}/cards`, { type: 'cluster', title: 'Still here' });
    await as(leaver, 'POST', `${base}/cards/${card.id}/votes`, { value: 1 });
    const criterion = await as<{ id: string }>(fay, 'POST', `${base}/criteria`, { title: 'Impact', scale: 4 });
    await as(leaver, 'POST', `${base}/cards/${card.id}/ratings`, { criterium_id: criterion.id, value: 3 });
    const watching = await sockets.joined(fay, workshop.id);
    const api = sdkOf(fay);
    const live = await openLive(api, workshop.id);
    expect(heldCard(live, card.id)!.user_id).toBe(leaver.id);
    expect(live.state.participation.users!.map((user) => user.id)).toEqual([leaver.id]);
    // A refused deletion tells nobody anything.
    expectError(await deleteAccount(leaver, { password: 'not my password' }), 401, 'invalid_credentials');

    expect((await deleteAccount(leaver)).status).toBe(204);

    const told = await watching.next('workshop:event', (payload) => payload.action === 'removeUser');
    expect(told).toEqual({
      seq: expect.any(Number),
      workshop_id: workshop.id,
      action: 'removeUser',
      change: { user: { id: null, name: 'Deleted user' } },
      reload: true,
    });
    expect(watching.all('workshop:event', (payload) => payload.action === 'removeUser')).toHaveLength(1);
    await until(() => heldCard(live, card.id)?.user_id === null, 'the live card without its author');
    expect(live.state.cards).toEqual(await cardsOverRest(api, workshop.id));
    expect(live.state.participation.users).toEqual([]);
    expect(live.state.workshop.criteria[0]!.ratings.map((rating) => rating.user_id)).toEqual([null]);
    expect(JSON.stringify(live.state)).not.toContain(leaver.id);
    expect(JSON.stringify(live.state)).not.toContain(LEAVER);

    // Logged by nobody, once, where the account had a part; nothing where it had none.
    const log = await as<EventOutput[]>(fay, 'GET', `${base}/events?per_page=100`);
    const removed = log.filter((event) => event.action === 'removeUser');
    expect(removed).toEqual([expect.objectContaining({ seq: told.seq, user: null, api_token: null })]);
    expect(await actionsLogged(fay, untouched.id)).not.toContain('removeUser');
  });
});

describe('what a deleted account wrote in another person’s workshop', () => {
  it('stays, with no author, on REST, live events, replays, the event log and every export; its votes stay counted', async () => {
    const fay = await createUser(t, 'Fay Host');
    const leaver = await createUser(t, LEAVER);
    const workshop = await workshopJoinedBy(t, fay, [leaver]);
    const base = `/v1/workshops/${workshop.id}`;
    const { idea } = await writtenBy(t, fay, leaver, workshop.id);
    const criterion = await as<{ id: string }>(fay, 'POST', `${base}/criteria`, { title: 'Impact', scale: 4 });
    await as(leaver, 'POST', `${base}/cards/${idea.id}/ratings`, { criterium_id: criterion.id, value: 4 });
    const watching = await sockets.joined(fay, workshop.id);

    expect((await deleteAccount(leaver)).status).toBe(204);

    // REST
    const card = await as<CardOutput>(fay, 'GET', `${base}/cards/${idea.id}`);
    expect(card.user_id).toBeNull();
    expect(card.summary.score).toBe(2);
    const comments = await as<CommentOutput[]>(fay, 'GET', `${base}/cards/${idea.id}/comments`);
    expect(comments.map((c) => [c.content, c.user_id])).toEqual([['A comment that stays', null]]);
    const items = await as<ItemOutput[]>(fay, 'GET', `${base}/cards/${idea.id}/items`);
    expect(items.map((i) => [i.content, i.user_id])).toEqual([['An item that stays', null]]);
    const roles = await as<UserRoleOutput[]>(fay, 'GET', `${base}/user_roles`);
    expect(roles.map((role) => role.user_id)).toEqual([fay.id]);
    const votes = await as<VoteOutput[]>(fay, 'GET', `${base}/cards/${idea.id}/votes`);
    expect(votes.map((vote) => vote.user_id).sort()).toEqual([fay.id, null].sort());
    const ratings = await as<RatingOutput[]>(fay, 'GET', `${base}/cards/${idea.id}/ratings`);
    expect(ratings.map((rating) => [rating.value, rating.user_id])).toEqual([[4, null]]);
    const read = await as<WorkshopOutput>(fay, 'GET', base);
    expect(read.criteria[0]!.ratings.map((rating) => rating.user_id)).toEqual([null]);

    // Live: someone else's change to the card after the deletion, and a replay from the start.
    await as(fay, 'PUT', `${base}/cards/${idea.id}`, { title: 'An idea that stays, edited' });
    const updated = await watching.next('card:updated', (p) => p.card?.id === idea.id);
    expect(updated.card.user_id).toBeNull();
    const replaying = await sockets.connected(fay);
    expect(await replaying.join(workshop.id, 0)).toMatchObject({ ok: true });
    await replaying.next('card:created', (p) => p.card?.id === idea.id);
    const replayed = JSON.stringify(replaying.received);
    expect(replayed).not.toContain(leaver.id);
    expect(replayed).not.toContain(LEAVER);

    // The event log
    const log = await as<EventOutput[]>(fay, 'GET', `${base}/events?per_page=100`);
    const added = log.find((event) => event.action === 'addCard' && JSON.stringify(event.change).includes(idea.id))!;
    expect(added.user).toEqual({ id: null, name: 'Deleted user' });
    expect((added.change.card as { user_id: string | null }).user_id).toBeNull();
    expect(JSON.stringify(log)).not.toContain(leaver.id);
    expect(JSON.stringify(log)).not.toContain(LEAVER);

    // Every export format
    const csv = (await exported(t, fay, workshop.id, 'csv')).data.toString('utf8');
    expect(csv).toContain('An idea that stays, edited');
    expect(csv).not.toContain(LEAVER);

    const xlsx = (await exported(t, fay, workshop.id, 'xlsx')).data;
    expect(await zipText(xlsx)).not.toContain(LEAVER);
    const workbook = await workbookOf(xlsx);
    expect(rowWith(records(workbook, 'Cards'), 'Title', 'An idea that stays, edited')['Author']).toBe('Deleted user');
    expect(rowWith(records(workbook, 'Comments'), 'Content', 'A comment that stays')['User']).toBe('Deleted user');
    expect(rowWith(records(workbook, 'Items'), 'Content', 'An item that stays')['User']).toBe('Deleted user');
    const voters = records(workbook, 'Votes').map((vote) => vote['User']);
    expect(voters.sort()).toEqual(['Deleted user', 'Fay Host']);

    const pdf = await readPdf((await exported(t, fay, workshop.id, 'pdf')).data);
    expect(pdf.pages.map((page) => page.text).join('\n')).not.toContain(LEAVER);
    expect(lineAfter(pdf, 'An idea that stays, edited')).toMatch(/· by Deleted user$/);

    const docx = await zipText((await exported(t, fay, workshop.id, 'docx')).data);
    expect(docx).not.toContain(LEAVER);
    expect(docx).toContain('Deleted user');

    const native = (await exported(t, fay, workshop.id, 'native')).data.toString('utf8');
    expect(native).not.toContain(LEAVER);
    const document = JSON.parse(native) as NativeDocument;
    expect(document.cards.find((c) => c.id === idea.id)!.user_id).toBeNull();
    expect(document.comments.map((c) => c.user_id)).toEqual([null]);
    expect(document.votes).toHaveLength(2);
  });
});

describe('what a deleted account wrote anonymously', () => {
  it('stays anonymous: the log names nobody on it, not even a deleted user', async () => {
    const fay = await createUser(t, 'Fay Host');
    const leaver = await createUser(t, LEAVER);
    const workshop = await workshopJoinedBy(t, fay, [leaver]);
    await seedCurrentStep(t, workshop.id, { authors: 'hidden' });
    const card = await as<CardOutput>(leaver, 'POST', `/v1/workshops/${workshop.id}/cards`, {
      type: 'cluster',
      title: 'Said without a name',
    });
    expect((await deleteAccount(leaver)).status).toBe(204);

    const log = await as<EventOutput[]>(fay, 'GET', `/v1/workshops/${workshop.id}/events`);
    const added = log.find((event) => event.action === 'addCard')!;
    expect((added.change.card as CardOutput).id).toBe(card.id);
    expect(added.user).toBeNull();
    expect((added.change.card as CardOutput).user_id).toBeNull();
  });
});

describe('what others were told of a deleted account', () => {
  it('a notification someone got from them names a deleted user', async () => {
    const owner = await createUser(t, 'Olga Owner');
    const leaver = await createUser(t, LEAVER);
    const participant = await createUser(t, 'Pat Participant');
    const workshop = await workshopJoinedBy(t, owner, [leaver, participant]);
    await promote(owner, workshop.id, leaver);
    const step = await as<{ id: string }>(owner, 'POST', `/v1/workshops/${workshop.id}/steps`, { name: 'Vote' });
    await as(leaver, 'PUT', `/v1/workshops/${workshop.id}`, { current_step_id: step.id });
    const told = async () =>
      (await as<Array<{ data: Record<string, unknown> }>>(participant, 'GET', '/v1/user/me/notifications')).map(
        (notification) => notification.data.from,
      );
    expect(await told()).toEqual([expect.objectContaining({ id: leaver.id, name: LEAVER })]);

    expect((await deleteAccount(leaver)).status).toBe(204);
    expect(await told()).toEqual([{ id: null, name: 'Deleted user', avatar_url: null, guest: false }]);
  });
});

describe('deleting an account: its workshops and organizations', () => {
  it('a personal workshop with co-facilitators passes to the longest-standing one, one without goes with its exports, organization workshops stay, as the preview said', async () => {
    const leaver = await createConfirmedUser(t, 'Owner leaving');
    const first = await createConfirmedUser(t, 'First co-facilitator');
    const second = await createConfirmedUser(t, 'Second co-facilitator');
    const shared = await workshopJoinedBy(t, leaver, [first, second], { title: 'Shared retro' });
    await promote(leaver, shared.id, second);
    await promote(leaver, shared.id, first);
    const alone = await as<WorkshopOutput>(leaver, 'POST', '/v1/workshops', { title: 'Alone retro' });
    const { url: exportUrl } = await exported(t, leaver, alone.id, 'csv');

    const solo = await organizationOf(leaver, 'Solo org');
    const team = await organizationOf(leaver, 'Team org');
    await as(leaver, 'POST', `/v1/organizations/${team.id}/members`, { email: first.email, role: 'admin' });
    const teamWorkshop = await as<WorkshopOutput>(leaver, 'POST', `/v1/organizations/${team.id}/workshops`, {
      title: 'Team retro',
    });
    await as(leaver, 'POST', `/v1/organizations/${team.id}/api_tokens`, { name: 'CI', scopes: ['workshops:read'] });

    const planned = await preview(leaver);
    expect(planned).toEqual({
      workshops_deleted: [{ id: alone.id, title: 'Alone retro' }],
      workshops_passed_on: [{ id: shared.id, title: 'Shared retro', to: { id: first.id, name: first.name } }],
      organizations_left: [{ id: team.id, name: 'Team org' }],
      organizations_deleted: [{ id: solo.id, name: 'Solo org' }],
      last_admin_of: [],
      sessions: 1,
      api_tokens: 0,
      notifications: expect.any(Number),
      password_required: true,
      reauthentication_required: false,
    });

    expect((await deleteAccount(leaver)).status).toBe(204);

    const passed = await as<WorkshopOutput>(first, 'GET', `/v1/workshops/${shared.id}`);
    expect(passed.owner).toMatchObject({ id: first.id, name: first.name });
    const roles = await as<UserRoleOutput[]>(first, 'GET', `/v1/workshops/${shared.id}/user_roles`);
    expect(roles.map((role) => role.user_id).sort()).toEqual([first.id, second.id].sort());
    expect(await t.rows(sql`select id from workshops where id = ${alone.id}`)).toEqual([]);
    expect((await fetch(exportUrl)).status).toBe(404);
    expect(await t.rows(sql`select id from organizations where id = ${solo.id}`)).toEqual([]);
    // Its readers are told to read it again once it has passed on.
    expect((await actionsLogged(first, shared.id)).slice(-2)).toEqual(['updateWorkshop', 'removeUser']);
    const kept = await as<WorkshopOutput>(first, 'GET', `/v1/workshops/${teamWorkshop.id}`);
    expect(kept.owner.id).toBe(team.id);
    const members = await as<OrganizationMemberOutput[]>(first, 'GET', `/v1/organizations/${team.id}/members`);
    expect(members.map((member) => member.email)).toEqual([first.email]);
    const tokens = await as<ApiTokenOutput[]>(first, 'GET', `/v1/organizations/${team.id}/api_tokens`);
    expect(tokens.map((token) => [token.name, token.created_by])).toEqual([['CI', { id: null, name: 'Deleted user' }]]);
  });
});

describe('deleting an account: webhooks', () => {
  it('a delivery still waiting when the account goes names a deleted user, signed as ever', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const admin = await createConfirmedUser(t, 'Ada Admin');
      const leaver = await createUser(t, LEAVER);
      const organization = await organizationOf(admin, 'Hooked org');
      const made = await as<CreatedWebhookOutput>(admin, 'POST', `/v1/organizations/${organization.id}/webhooks`, {
        url: receiver.url,
        events: ['member.joined'],
      });
      receiver.trust(made.secret);
      receiver.answerWith(503);
      const workshop = await as<WorkshopOutput>(admin, 'POST', `/v1/organizations/${organization.id}/workshops`, {
        title: 'Hooked retro',
      });
      const { access_code } = await as<{ access_code: string }>(
        admin,
        'GET',
        `/v1/workshops/${workshop.id}/access_code`,
      );
      await as(leaver, 'POST', '/v1/workshops/join', { access_code });
      await until(() => receiver.attempts.length > 0, 'a first, refused attempt', 10_000);

      expect((await deleteAccount(leaver)).status).toBe(204);
      receiver.answerWith(204);
      await until(() => receiver.delivered().length > 0, 'the delivery', 10_000);
      const [delivered] = receiver.delivered();
      expect(receiver.refused).toEqual([]);
      expect(delivered!.data).toMatchObject({ member: { user_id: null, name: 'Deleted user' } });
      expect(delivered!.body).not.toContain(leaver.id);
      expect(delivered!.body).not.toContain(LEAVER);
    } finally {
      await receiver.close();
    }
  });
});

describe('deleting an account: another instance on the same database', () => {
  // Without Redis between them, that instance finds the ended sessions of its live sockets when it
  // checks them again (every 30 s by default; here at once).
  const other = useServer({ webhooks: WEBHOOKS, liveRecheckMs: 200 }, () => ({ shareDatabaseOf: t }));

  it('stops its sessions and personal API tokens there at once, and closes its live socket there', async () => {
    const leaver = await createConfirmedUser(t, LEAVER);
    const host = await createUser(t, 'Host');
    const workshop = await workshopJoinedBy(t, host, [leaver]);
    const apiToken = await as<{ token: string }>(leaver, 'POST', '/v1/user/me/api_tokens', {
      name: 'CI',
      scopes: ['workshops:read'],
    });
    const phone = (await login(leaver.email)).body.token;
    const readsThere = async (token: string) =>
      (await other.request('GET', `/v1/workshops/${workshop.id}`, { token })).status;
    const ways = [leaver.token, phone, apiToken.token];
    // Each used there first: the other instance has them resolved already.
    for (const token of ways) expect(await readsThere(token)).toBe(200);
    const live = await sockets.joined({ ...leaver, token: phone }, workshop.id, other);
    const ended = new Promise<string>((resolve) => live.socket.once('disconnect', resolve));

    expect((await deleteAccount(leaver)).status).toBe(204);

    for (const token of ways) expect(await readsThere(token)).toBe(401);
    expect(await ended).toBe('io server disconnect');
  });
});

describe.skipIf(!redisAvailable)('deleting an account: instances joined by Redis', () => {
  const redis = useRedis();
  // Periodic checks far apart: what reaches the other instance here goes through Redis.
  const [a, b] = useInstances(2, () => ({ redisUrl: redis.url, liveRecheckMs: 3_600_000 }));

  it('closes its live socket on the other instance at once, where a client connected before holds the card as REST reads it', async () => {
    const fay = await createUser(a, 'Fay Host');
    const leaver = await createUser(a, LEAVER);
    const workshop = await workshopJoinedBy(a, fay, [leaver]);
    const base = `/v1/workshops/${workshop.id}`;
    const card = await requestsOn(a)<CardOutput>(leaver, 'POST', `${base}/cards`, {
      type: 'cluster',
      title: 'Still here',
    });
    const gone = await sockets.joined(leaver, workshop.id, b);
    const ended = new Promise<string>((resolve) => gone.socket.once('disconnect', resolve));
    const watching = await sockets.joined(fay, workshop.id, b);
    const api = sdkOf(fay, b);
    const live = await openLive(api, workshop.id);
    expect(heldCard(live, card.id)!.user_id).toBe(leaver.id);

    const deleted = await a.request('DELETE', '/v1/user/me', { token: leaver.token, body: { password: PASSWORD } });
    expect(deleted.status).toBe(204);

    expect(await ended).toBe('io server disconnect');
    expect((await b.request('GET', '/v1/user/me', { token: leaver.token })).status).toBe(401);
    await watching.next('workshop:event', (payload) => payload.action === 'removeUser' && payload.reload === true);
    // Presence drops the account once its closed socket is counted out (a moment after).
    const present = () => live.state.presence.users.some((user) => user.id === leaver.id);
    await until(() => heldCard(live, card.id)?.user_id === null && !present(), 'the live card without its author');
    expect(live.state.cards).toEqual(await cardsOverRest(api, workshop.id));
    expect(JSON.stringify(live.state)).not.toContain(leaver.id);
    expect(JSON.stringify(live.state)).not.toContain(LEAVER);
  });
});
