import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_SCOPES } from '../src/domain/api-scopes';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { CreatedApiTokenOutput } from '../src/modules/api-tokens/schemas';
import { callOperation, documentedOperationsAtCollection, seedScene, type Scene } from './helpers/access-scene';
import { useServer, useUsers } from './helpers/cast';
import { confirmAddress, expectError, type TestUser } from './helpers/factories';
import { useProvider } from './helpers/oidc-provider';
import { providerBrowser } from './helpers/provider-sign-in';

/*
 * `sso_required` wherever access to an organization or its workshops is decided
 * (docs/integrations.md#requiring-it-for-an-organization): every documented operation naming the
 * organization or one of its workshops, learned from the OpenAPI document, refuses a member's
 * password session and a personal API token made from one; so do a copy, a join, the workshop
 * list and a replayed Idempotency-Key. A session opened through the provider, and a token made
 * from one, pass.
 */

const op = useProvider();
const t = useServer(() => ({
  oidc: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, name: 'Acme ID' },
}));
beforeAll(() => op.register(`${t.url}/v1/auth/oidc/callback`));
const provider = providerBrowser(t, op);
const [fay, pat] = useUsers(t, 'Fay', 'Pat');

/** A personal token of every scope, made by the session `token`. */
async function personalToken(token: string): Promise<string> {
  const res = await t.request<CreatedApiTokenOutput>('POST', '/v1/user/me/api_tokens', {
    token,
    body: { name: `all scopes ${randomBytes(3).toString('hex')}`, scopes: [...API_SCOPES] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token;
}

/** Fay signed in through the provider (it verifies her address, which links her account). */
async function providerSession(user: TestUser): Promise<string> {
  const login = `${user.name}-${randomBytes(4).toString('hex')}`;
  const fragment = await provider.signIn(login, { email: user.email, email_verified: true });
  expect(fragment.get('token'), fragment.toString()).toBeTruthy();
  return fragment.get('token')!;
}

const operations = await documentedOperationsAtCollection();
/** Every operation whose path names the organization or one of its workshops (a zone is a workshop's). */
const naming = operations.filter(
  (o) => /^\/v1\/(organizations|workshops)\/\{/.test(o.path) || o.path.includes('/zones/'),
);

const scene = {} as Scene;
const tokens = { password: '', provider: '', passwordToken: '', providerToken: '' };
const kept = { key: `kept-${randomBytes(6).toString('hex')}`, body: { type: 'cluster', title: 'Kept before' } };
beforeAll(async () => {
  // Confirmed: personal tokens and linking a provider identity need a proven address.
  await confirmAddress(t, fay.email, fay.token);
  Object.assign(scene, await seedScene(t, { fay, pat, organizationOwned: true }));
  tokens.password = fay.token;
  tokens.passwordToken = await personalToken(fay.token);
  tokens.provider = await providerSession(fay);
  tokens.providerToken = await personalToken(tokens.provider);
  // A write answered, and its answer kept, before the organization required single sign-on.
  const first = await t.request('POST', `/v1/workshops/${scene.workshop}/cards`, {
    token: fay.token,
    body: kept.body,
    headers: { 'idempotency-key': kept.key },
  });
  expect(first.status).toBe(201);
  const on = await t.request('PUT', `/v1/organizations/${scene.organization}`, {
    token: fay.token,
    body: { sso_required: true },
  });
  expect(on.status).toBe(204);
});

describe('a password session of the organization’s admin', () => {
  it('covers the operations naming a workshop or an organization', () => {
    expect(naming.length).toBeGreaterThan(90);
  });

  it.each(naming.filter((o) => o.key !== 'PUT /v1/organizations/{id}').map((o) => [o.key, o] as const))(
    '%s → 403 sso_required',
    async (_, operation) => {
      expectError(await callOperation(t, operation, scene, { token: tokens.password }), 403, 'sso_required');
    },
  );

  it('still reaches the organization’s settings, to turn single sign-on off', async () => {
    const settings = naming.find((o) => o.key === 'PUT /v1/organizations/{id}')!;
    expect((await callOperation(t, settings, scene, { token: tokens.password })).status).toBe(204);
  });
});

describe('a personal API token made from a password session', () => {
  it.each(naming.map((o) => [o.key, o] as const))('%s → 403', async (_, operation) => {
    const res = await callOperation(t, operation, scene, { token: tokens.passwordToken });
    // Operations tokens never take say so first; every other is single sign-on's.
    expectError(res, 403, operation.op['x-required-scope'] ? 'sso_required' : 'insufficient_scope');
  });
});

describe('around the paths', () => {
  it('refuses to copy an organization workshop into a personal one from a password session or its token', async () => {
    for (const token of [tokens.password, tokens.passwordToken]) {
      const copy = await t.request('POST', '/v1/workshops', { token, body: { workshop_id: scene.workshop } });
      expectError(copy, 403, 'sso_required');
    }
    const allowed = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: tokens.providerToken,
      body: { workshop_id: scene.workshop },
    });
    expect(allowed.status).toBe(201);
    expect(allowed.body.owner.id).toBe(fay.id);
  });

  it('refuses to join an organization workshop by its code from a password session', async () => {
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${scene.workshop}/access_code`, {
        token: tokens.provider,
      })
    ).body;
    expectError(
      await t.request('POST', '/v1/workshops/join', { token: tokens.password, body: { access_code } }),
      403,
      'sso_required',
    );
  });

  it('leaves the organization’s workshops out of a password session’s list, and shows them to the provider’s', async () => {
    const listed = async (token: string) =>
      (await t.request<WorkshopOutput[]>('GET', '/v1/user/me/workshops', { token })).body.map((w) => w.id);
    expect(await listed(tokens.password)).not.toContain(scene.workshop);
    expect(await listed(tokens.passwordToken)).not.toContain(scene.workshop);
    expect(await listed(tokens.provider)).toContain(scene.workshop);
    expect(await listed(tokens.providerToken)).toContain(scene.workshop);
  });

  it('does not replay to a password session an answer kept before single sign-on was required', async () => {
    const again = (token: string) =>
      t.request('POST', `/v1/workshops/${scene.workshop}/cards`, {
        token,
        body: kept.body,
        headers: { 'idempotency-key': kept.key },
      });
    const refused = await again(tokens.password);
    expectError(refused, 403, 'sso_required');
    expect(refused.headers.get('idempotent-replayed')).toBeNull();
    // The same person through the provider gets the kept answer: the key is theirs.
    const replayed = await again(tokens.provider);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  it('lets a personal token made from a provider session read the organization’s workshop', async () => {
    expect(
      (await t.request('GET', `/v1/workshops/${scene.workshop}/cards`, { token: tokens.providerToken })).status,
    ).toBe(200);
  });
});
