import { describe, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { ApiError, createClient } from '../client-sdk/src/index';
import type { CreatedApiTokenOutput, ApiTokenOutput } from '../src/modules/api-tokens/schemas';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { EventOutput } from '../src/modules/events/schemas';
import { castVote } from '../src/modules/votes/service';
import {
  createConfirmedUser,
  createUser,
  expectError,
  seedCard,
  seedWorkshopWith,
  type TestUser,
} from './helpers/factories';
import { useServer } from './helpers/cast';
import { startTestServer, type TestServer } from './helpers/server';
import { until } from './helpers/wait';
import { rawSync, syncedDoc } from './helpers/collab';

/*
 * Scoped API tokens (docs/integrations.md): made by organization admins and confirmed
 * users, the secret shown once, acting as their owner narrowed to their scopes, revoked at once on
 * every instance, limited per token. The scope of every operation is tested in security-tokens.test.ts.
 */

const t = useServer({ apiTokenRequestsPerMinute: 20 });

async function makeToken(
  server: TestServer,
  user: TestUser,
  path: string,
  body: Record<string, unknown>,
): Promise<CreatedApiTokenOutput> {
  const res = await server.request<CreatedApiTokenOutput>('POST', path, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function organizationOf(user: TestUser): Promise<OrganizationOutput> {
  return (
    await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: user.token, body: { name: 'Acme' } })
  ).body;
}

describe('personal tokens', () => {
  it('show the secret once, list without it, and act as their user within their scopes', async () => {
    const fay = await createConfirmedUser(t, 'Fay');
    const workshop = await seedWorkshopWith(t, fay, []);
    const made = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'CI', scopes: ['workshops:read'] });
    expect(made.token).toMatch(/^wsk_[A-Za-z0-9_-]{43,}$/);
    expect(made).toMatchObject({ name: 'CI', scopes: ['workshops:read'], last_used_at: null, expires_at: null });
    expect(made.token.startsWith(made.prefix)).toBe(true);

    const read = await t.request<WorkshopOutput>('GET', `/v1/workshops/${workshop.id}`, { token: made.token });
    expect(read.status).toBe(200);
    const cards = await t.request('GET', `/v1/workshops/${workshop.id}/cards`, { token: made.token });
    expectError(cards, 403, 'insufficient_scope');
    expect(JSON.stringify(cards.body)).toContain('cards:read');

    const listed = await t.request<ApiTokenOutput[]>('GET', '/v1/user/me/api_tokens', { token: fay.token });
    expect(listed.body).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(made.token);
    expect(listed.body[0]).not.toHaveProperty('token');
    expect(listed.body[0]!.last_used_at).not.toBeNull();
  });

  it('are refused to guests, unconfirmed accounts, and to tokens themselves', async () => {
    const unconfirmed = await createUser(t, 'Una');
    const body = { name: 'x', scopes: ['cards:read'] };
    expectError(
      await t.request('POST', '/v1/user/me/api_tokens', { token: unconfirmed.token, body }),
      403,
      'forbidden',
    );
    const fay = await createConfirmedUser(t, 'Fay');
    const all = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'all', scopes: ['workshops:write'] });
    const res = await t.request('POST', '/v1/user/me/api_tokens', { token: all.token, body });
    expectError(res, 403, 'insufficient_scope');
    const workshop = await seedWorkshopWith(t, fay, []);
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${workshop.id}/access_code`, { token: fay.token })
    ).body;
    const guest = await t.request<{ token: string }>('POST', '/v1/workshops/join/guest', {
      body: { access_code, name: 'G' },
    });
    expectError(await t.request('POST', '/v1/user/me/api_tokens', { token: guest.body.token, body }), 403, 'forbidden');
  });

  it('stop working once expired, and after revocation (401)', async () => {
    const fay = await createConfirmedUser(t, 'Fay');
    const soon = new Date(Date.now() + 1500).toISOString();
    const expiring = await makeToken(t, fay, '/v1/user/me/api_tokens', {
      name: 'short',
      scopes: ['workshops:read'],
      expires_at: soon,
    });
    expect((await t.request('GET', '/v1/user/me/workshops', { token: expiring.token })).status).toBe(200);
    await until(
      async () => (await t.request('GET', '/v1/user/me/workshops', { token: expiring.token })).status === 401,
      'the token to expire',
      5_000,
      400,
    );

    const revoked = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'r', scopes: ['workshops:read'] });
    expect((await t.request('GET', '/v1/user/me/workshops', { token: revoked.token })).status).toBe(200);
    const del = await t.request('DELETE', `/v1/user/me/api_tokens/${revoked.id}`, { token: fay.token });
    expect(del.status).toBe(204);
    expectError(await t.request('GET', '/v1/user/me/workshops', { token: revoked.token }), 401, 'unauthenticated');
  });

  it('are REST only: Socket.IO refuses them', async () => {
    const fay = await createConfirmedUser(t, 'Fay');
    const made = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 's', scopes: ['workshops:read'] });
    const socket = io(t.url, { auth: { token: made.token }, transports: ['websocket'], reconnection: false });
    const error = await new Promise<Error>((resolve) => socket.on('connect_error', resolve));
    socket.close();
    expect(error).toBeInstanceOf(Error);
  });

  it('keep Idempotency-Keys of their own: a repeat is replayed, another body refused', async () => {
    const fay = await createConfirmedUser(t, 'Fay');
    const made = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'k', scopes: ['workshops:write'] });
    const create = (title: string, token = made.token) =>
      t.request<WorkshopOutput>('POST', '/v1/workshops', {
        token,
        body: { title },
        headers: { 'Idempotency-Key': 'sync-42' },
      });
    const first = await create('Once');
    expect(first.status).toBe(201);
    const again = await create('Once');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expectError(await create('Other'), 422, 'idempotency_key_reused');
    // The person's own session has keys of its own.
    const own = await create('Once', fay.token);
    expect(own.headers.get('idempotent-replayed')).toBeNull();
    expect(own.body.id).not.toBe(first.body.id);
  });

  it('are REST only: the sync endpoint closes on them before any sync', async () => {
    const fay = await createConfirmedUser(t, 'Fay');
    const workshop = await seedWorkshopWith(t, fay, []);
    const made = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'y', scopes: ['workshops:read'] });
    const refused = await rawSync(t, `/v1/sync/${workshop.id}?token=${made.token}`);
    expect(refused).toMatchObject({ code: 4401, reason: 'unauthenticated', messages: [] });
    // The same workshop opens for its facilitator's own session.
    const synced = await syncedDoc(t, workshop.id, fay.token);
    synced.destroy();
  });

  it('have a rate limit of their own: 429 with Retry-After', async () => {
    const fay = await createConfirmedUser(t, 'Fay');
    const made = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'busy', scopes: ['workshops:read'] });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await t.request('GET', '/v1/templates', { token: made.token })).status);
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true);
    const refused = await t.request('GET', '/v1/templates', { token: made.token });
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The person's own session is not counted with it.
    expect((await t.request('GET', '/v1/templates', { token: fay.token })).status).toBe(200);
  });
});

describe('organization tokens', () => {
  it('are made by admins, act as an admin on the organization only, and not as a person', async () => {
    const ada = await createConfirmedUser(t, 'Ada');
    const org = await organizationOf(ada);
    const other = await organizationOf(ada);
    const scopes = ['workshops:read', 'workshops:write', 'members:read'];
    const made = await makeToken(t, ada, `/v1/organizations/${org.id}/api_tokens`, { name: 'sync', scopes });
    const created = await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, {
      token: made.token,
      body: { title: 'From the tracker' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const listed = await t.request<WorkshopOutput[]>('GET', `/v1/organizations/${org.id}/workshops`, {
      token: made.token,
    });
    expect(listed.body.map((w) => w.id)).toEqual([created.body.id]);
    const put = await t.request('PUT', `/v1/workshops/${created.body.id}`, { token: made.token, body: { title: 'R' } });
    expect(put.status).toBe(200);

    // Another organization of the same admin, and the admin's own workshop: out of reach.
    expectError(
      await t.request('GET', `/v1/organizations/${other.id}/workshops`, { token: made.token }),
      404,
      'not_found',
    );
    const own = await seedWorkshopWith(t, ada, []);
    expectError(await t.request('GET', `/v1/workshops/${own.id}`, { token: made.token }), 404, 'not_found');
    expectError(await t.request('GET', '/v1/user/me/workshops', { token: made.token }), 403, 'insufficient_scope');
    const again = await t.request('POST', `/v1/organizations/${org.id}/api_tokens`, {
      token: made.token,
      body: { name: 'x', scopes },
    });
    expectError(again, 403, 'insufficient_scope');
  });

  it('belong to the organization: once their maker is no admin, they act as another admin', async () => {
    const ada = await createConfirmedUser(t, 'Ada');
    const bea = await createConfirmedUser(t, 'Bea');
    const org = await organizationOf(ada);
    await t.request('POST', `/v1/organizations/${org.id}/members`, {
      token: ada.token,
      body: { email: bea.email, role: 'admin' },
    });
    const made = await makeToken(t, ada, `/v1/organizations/${org.id}/api_tokens`, {
      name: 'sync',
      scopes: ['workshops:read', 'workshops:write'],
    });
    const members = (
      await t.request<Array<{ id: string; email: string }>>('GET', `/v1/organizations/${org.id}/members`, {
        token: bea.token,
      })
    ).body;
    const adasSeat = members.find((member) => member.email === ada.email)!;
    expect(
      (await t.request('DELETE', `/v1/organizations/${org.id}/members/${adasSeat.id}`, { token: bea.token })).status,
    ).toBe(204);

    const created = await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, {
      token: made.token,
      body: { title: 'After Ada' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const log = await t.request<Array<{ action: string; user: { id: string } | null }>>(
      'GET',
      `/v1/workshops/${created.body.id}/events`,
      { token: bea.token },
    );
    expect(log.body.find((event) => event.action === 'createWorkshop')?.user?.id).toBe(bea.id);
    // Ada, no longer a member, reaches nothing of it with her own session.
    expectError(await t.request('GET', `/v1/workshops/${created.body.id}`, { token: ada.token }), 404, 'not_found');
  });

  it('say who made them (created_by) when made and in both lists, still after the maker left', async () => {
    const fay = await createConfirmedUser(t, 'Fay');
    const personal = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'mine', scopes: ['workshops:read'] });
    expect(personal.created_by).toEqual({ id: fay.id, name: 'Fay' });
    const mine = await t.request<ApiTokenOutput[]>('GET', '/v1/user/me/api_tokens', { token: fay.token });
    expect(mine.body.map((token) => token.created_by)).toEqual([{ id: fay.id, name: 'Fay' }]);

    const ada = await createConfirmedUser(t, 'Ada');
    const bea = await createConfirmedUser(t, 'Bea');
    const org = await organizationOf(ada);
    const path = `/v1/organizations/${org.id}`;
    await t.request('POST', `${path}/members`, { token: ada.token, body: { email: bea.email, role: 'admin' } });
    const adas = await makeToken(t, ada, `${path}/api_tokens`, { name: 'tracker', scopes: ['workshops:read'] });
    const beas = await makeToken(t, bea, `${path}/api_tokens`, { name: 'backup', scopes: ['workshops:read'] });
    expect(adas.created_by).toEqual({ id: ada.id, name: 'Ada' });
    const members = (
      await t.request<Array<{ id: string; email: string }>>('GET', `${path}/members`, { token: bea.token })
    ).body;
    const adasSeat = members.find((member) => member.email === ada.email)!;
    expect((await t.request('DELETE', `${path}/members/${adasSeat.id}`, { token: bea.token })).status).toBe(204);

    const listed = await t.request<ApiTokenOutput[]>('GET', `${path}/api_tokens`, { token: bea.token });
    expect(new Map(listed.body.map((token) => [token.id, token.created_by]))).toEqual(
      new Map([
        [beas.id, { id: bea.id, name: 'Bea' }],
        [adas.id, { id: ada.id, name: 'Ada' }],
      ]),
    );
  });

  it("name themselves in the event log: a token's changes show api_token beside the admin it acted as", async () => {
    const ada = await createConfirmedUser(t, 'Ada');
    const org = await organizationOf(ada);
    const made = await makeToken(t, ada, `/v1/organizations/${org.id}/api_tokens`, {
      name: 'tracker',
      scopes: ['workshops:write', 'cards:write', 'votes:write'],
    });
    const workshop = await t.request<WorkshopOutput>('POST', `/v1/organizations/${org.id}/workshops`, {
      token: made.token,
      body: { title: 'Synced' },
    });
    const cards = `/v1/workshops/${workshop.body.id}/cards`;
    const cluster = await t.request<{ id: string }>('POST', cards, {
      token: made.token,
      body: { type: 'cluster', title: 'From the tracker' },
    });
    expect(cluster.status, JSON.stringify(cluster.body)).toBe(201);
    const vote = await t.request('POST', `${cards}/${cluster.body.id}/votes`, {
      token: made.token,
      body: { value: 1 },
    });
    expect(vote.status, JSON.stringify(vote.body)).toBe(201);
    await t.request('PUT', `/v1/workshops/${workshop.body.id}`, { token: ada.token, body: { title: 'Renamed' } });

    const log = await t.request<EventOutput[]>('GET', `/v1/workshops/${workshop.body.id}/events`, {
      token: ada.token,
    });
    const tracker = { id: made.id, name: 'tracker' };
    const byAction = (action: string) => log.body.filter((event) => event.action === action);
    for (const action of ['createWorkshop', 'addCard', 'addVote']) {
      expect(byAction(action).map((event) => [event.user?.id, event.api_token])).toEqual([[ada.id, tracker]]);
    }
    expect(byAction('updateWorkshop').map((event) => event.api_token)).toEqual([null]);

    // A revoked token is still named by what it did.
    expect(
      (await t.request('DELETE', `/v1/organizations/${org.id}/api_tokens/${made.id}`, { token: ada.token })).status,
    ).toBe(204);
    const later = await t.request<EventOutput[]>('GET', `/v1/workshops/${workshop.body.id}/events?filters=addCard`, {
      token: ada.token,
    });
    expect(later.body.map((event) => event.api_token)).toEqual([tracker]);
  });

  it("name themselves on their own votes only, when a token's vote and a session's are written in one batch", async () => {
    const ada = await createConfirmedUser(t, 'Ada');
    const workshop = await seedWorkshopWith(t, ada, []);
    const card = await seedCard(t, workshop.id, ada, { type: 'cluster' });
    const made = await makeToken(t, ada, '/v1/user/me/api_tokens', { name: 'laptop', scopes: ['votes:write'] });
    // Votes asked for in one turn of the event loop share a transaction (`writeBatched`), as
    // requests arriving together do; called here through the service to make them meet.
    const ref = { workshopId: workshop.id, cardId: card.id, caller: ada };
    await Promise.all([
      castVote({ ...t.deps, apiTokenId: made.id }, ref, { value: 1 }),
      castVote(t.deps, ref, { value: 1 }),
    ]);
    const log = await t.request<EventOutput[]>('GET', `/v1/workshops/${workshop.id}/events?filters=addVote`, {
      token: ada.token,
    });
    expect(log.body.map((event) => event.api_token?.name ?? null).sort()).toEqual(['laptop', null]);
  });

  it('work through the SDK: an organization token registers a webhook, its scopes answered as ApiError', async () => {
    const ada = await createConfirmedUser(t, 'Ada');
    const org = await organizationOf(ada);
    const made = await makeToken(t, ada, `/v1/organizations/${org.id}/api_tokens`, {
      name: 'tracker',
      scopes: ['webhooks:write', 'webhooks:read'],
    });
    const integration = createClient({ baseUrl: t.url, token: made.token });
    const webhook = await integration.post('/v1/organizations/{id}/webhooks', {
      params: { path: { id: org.id } },
      body: { url: 'https://tracker.example.com/hooks', events: ['workshop.step_changed'] },
    });
    expect(webhook.secret).toMatch(/^whsec_/);
    const listed = await integration.get('/v1/organizations/{id}/webhooks', { params: { path: { id: org.id } } });
    expect(listed.map((w) => w.id)).toEqual([webhook.id]);
    const refused = await integration
      .get('/v1/organizations/{organization_id}/workshops', { params: { path: { organization_id: org.id } } })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('are for admins only; facilitator members get 403, strangers 404', async () => {
    const ada = await createConfirmedUser(t, 'Ada');
    const fred = await createConfirmedUser(t, 'Fred');
    const stan = await createConfirmedUser(t, 'Stan');
    const org = await organizationOf(ada);
    await t.request('POST', `/v1/organizations/${org.id}/members`, {
      token: ada.token,
      body: { email: fred.email, role: 'facilitator' },
    });
    const body = { name: 'x', scopes: ['workshops:read'] };
    const path = `/v1/organizations/${org.id}/api_tokens`;
    expectError(await t.request('POST', path, { token: fred.token, body }), 403, 'forbidden');
    expectError(await t.request('POST', path, { token: stan.token, body }), 404, 'not_found');
    expectError(await t.request('GET', path, { token: fred.token }), 403, 'forbidden');
  });
});

describe('tokens and roles', () => {
  type Member = { id: string; email: string; role: 'facilitator' | 'admin' };

  /**
   * Ada's organization with a second admin (Bea) and a facilitator (Fred), and an organization
   * token of Ada's that may write members.
   */
  async function rolesScene() {
    const [ada, bea, fred] = await Promise.all(['Ada', 'Bea', 'Fred'].map((name) => createConfirmedUser(t, name)));
    const org = await organizationOf(ada!);
    const members = `/v1/organizations/${org.id}/members`;
    for (const [who, role] of [
      [bea!, 'admin'],
      [fred!, 'facilitator'],
    ] as const) {
      const added = await t.request('POST', members, { token: ada!.token, body: { email: who.email, role } });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
    }
    const made = await makeToken(t, ada!, `/v1/organizations/${org.id}/api_tokens`, {
      name: 'directory sync',
      scopes: ['members:read', 'members:write'],
    });
    const list = async () => (await t.request<Member[]>('GET', members, { token: ada!.token })).body;
    const seatOf = async (user: TestUser) => (await list()).find((member) => member.email === user.email)!;
    return { ada: ada!, bea: bea!, fred: fred!, org, members, token: made.token, list, seatOf };
  }

  it('a members:write token cannot make anyone an admin: 403 insufficient_scope, and nobody is added', async () => {
    const { members, token, list } = await rolesScene();
    const before = await list();
    const refused = await t.request('POST', members, { token, body: { email: 'eve@example.test', role: 'admin' } });
    expectError(refused, 403, 'insufficient_scope');
    expect((refused.body as { error: { message: string } }).error.message).toMatch(/admins takes a person/);
    expect(await list()).toEqual(before);
  });

  it('a members:write token cannot remove an admin: 403 insufficient_scope, and the admin stays', async () => {
    const { bea, org, members, token, list, seatOf } = await rolesScene();
    const before = await list();
    const refused = await t.request('DELETE', `${members}/${(await seatOf(bea)).id}`, { token });
    expectError(refused, 403, 'insufficient_scope');
    expect(await list()).toEqual(before);
    // Bea is still an admin: she makes tokens.
    await makeToken(t, bea, `/v1/organizations/${org.id}/api_tokens`, {
      name: 'still admin',
      scopes: ['members:read'],
    });
  });

  it("a members:write token cannot change anyone's role to or from admin: 403 insufficient_scope, roles unchanged", async () => {
    const { bea, fred, members, token, list, seatOf } = await rolesScene();
    const before = await list();
    for (const [who, role] of [
      [fred, 'admin'],
      [bea, 'facilitator'],
      [bea, 'admin'],
    ] as const) {
      const refused = await t.request('PUT', `${members}/${(await seatOf(who)).id}`, { token, body: { role } });
      expectError(refused, 403, 'insufficient_scope');
      expect((refused.body as { error: { message: string } }).error.message).toMatch(/admins takes a person/);
    }
    expect(await list()).toEqual(before);
  });

  it('a members:write token still adds, changes and removes facilitators', async () => {
    const { fred, members, token, list, seatOf } = await rolesScene();
    const added = await t.request<Member>('POST', members, {
      token,
      body: { email: 'new.facilitator@example.test', role: 'facilitator' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.role).toBe('facilitator');
    const kept = await t.request<Member>('PUT', `${members}/${added.body.id}`, {
      token,
      body: { role: 'facilitator' },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.role).toBe('facilitator');
    expect((await t.request('DELETE', `${members}/${(await seatOf(fred)).id}`, { token })).status).toBe(204);
    const emails = (await list()).map((member) => member.email);
    expect(emails).not.toContain(fred.email);
    expect(emails).toContain('new.facilitator@example.test');
  });

  it('a person who is an admin still adds, changes and removes admins', async () => {
    const { ada, bea, fred, members, list, seatOf } = await rolesScene();
    const promoted = await t.request<Member>('PUT', `${members}/${(await seatOf(fred)).id}`, {
      token: ada.token,
      body: { role: 'admin' },
    });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    expect(promoted.body.role).toBe('admin');
    const added = await t.request<Member>('POST', members, {
      token: ada.token,
      body: { email: 'second.admin@example.test', role: 'admin' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect((await t.request('DELETE', `${members}/${(await seatOf(bea)).id}`, { token: ada.token })).status).toBe(204);
    const after = await list();
    expect(after.find((member) => member.email === 'second.admin@example.test')?.role).toBe('admin');
    expect(after.find((member) => member.email === bea.email)).toBeUndefined();
    expect(after.find((member) => member.email === fred.email)?.role).toBe('admin');
  });
});

describe('on two instances sharing a database', () => {
  it('a revoked token stops at once on the other instance', async () => {
    const second = await startTestServer({}, { shareDatabaseOf: t });
    try {
      const fay = await createConfirmedUser(t, 'Fay');
      const made = await makeToken(t, fay, '/v1/user/me/api_tokens', { name: 'both', scopes: ['workshops:read'] });
      expect((await second.request('GET', '/v1/user/me/workshops', { token: made.token })).status).toBe(200);
      expect((await t.request('DELETE', `/v1/user/me/api_tokens/${made.id}`, { token: fay.token })).status).toBe(204);
      expectError(await second.request('GET', '/v1/user/me/workshops', { token: made.token }), 401, 'unauthenticated');
    } finally {
      await second.close();
    }
  });
});
