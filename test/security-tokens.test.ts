import { afterAll, describe, expect, it } from 'vitest';
import { API_SCOPES } from '../src/domain/api-scopes';
import type { CreatedApiTokenOutput } from '../src/modules/api-tokens/schemas';
import { createConfirmedUser, expectError, seedWorkshopWith } from './helpers/factories';
import type { OpenApiDocument } from './helpers/openapi';
import { startTestServer } from './helpers/server';

/*
 * API token scopes, learned from the OpenAPI document (`x-required-scope`, docs/integrations.md#scopes):
 * for every operation, a token without its scope answers 403 `insufficient_scope` naming it; a
 * token with it reads what its owner reads; an operation naming no scope takes no token at all.
 */

const t = await startTestServer();
afterAll(() => t.close());

const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    scope: op['x-required-scope'] as string | undefined,
    isPublic: Array.isArray(op.security) && op.security.length === 0,
    key: `${method.toUpperCase()} ${path}`,
  })),
);

const fay = await createConfirmedUser(t, 'Fay');
const workshop = await seedWorkshopWith(t, fay, []);

/** Fay's token with every scope but `missing`. */
async function tokenWithout(missing?: string): Promise<string> {
  const scopes = API_SCOPES.filter((scope) => scope !== missing);
  const res = await t.request<CreatedApiTokenOutput>('POST', '/v1/user/me/api_tokens', {
    token: fay.token,
    body: { name: `without ${missing ?? 'nothing'}`, scopes },
  });
  expect(res.status).toBe(201);
  return res.body.token;
}

/** Her workshop for workshop ids, made-up ids for the rest: the owner and the token then meet the same resources. */
function fill(path: string): string {
  const segments = path.split('/');
  return segments
    .map((segment, i) => {
      if (!segment.startsWith('{')) return segment;
      return segments[i - 1] === 'workshops' ? workshop.id : 'no-such-id';
    })
    .join('/');
}

describe('the document', () => {
  it('names a scope from the fixed list on the operations tokens reach', () => {
    const scoped = operations.filter((o) => o.scope !== undefined);
    expect(scoped.length).toBeGreaterThan(80);
    expect(scoped.filter((o) => !(API_SCOPES as readonly string[]).includes(o.scope!))).toEqual([]);
    expect(operations.filter((o) => o.key.includes('api_tokens') && o.scope)).toEqual([]);
  });
});

describe('a token without the scope', () => {
  const tokens = new Map<string, Promise<string>>();
  const without = (scope?: string) => {
    const key = scope ?? '';
    if (!tokens.has(key)) tokens.set(key, tokenWithout(scope));
    return tokens.get(key)!;
  };

  it.each(operations.filter((o) => o.scope).map((o) => [o.key, o] as const))(
    '%s → 403 naming its scope',
    async (_, operation) => {
      const res = await t.request(operation.method, fill(operation.path), { token: await without(operation.scope) });
      expectError(res, 403, 'insufficient_scope');
      expect(JSON.stringify(res.body)).toContain(operation.scope);
    },
  );

  it.each(operations.filter((o) => !o.scope && !o.isPublic).map((o) => [o.key, o] as const))(
    '%s takes no API token → 403',
    async (_, operation) => {
      const res = await t.request(operation.method, fill(operation.path), { token: await without() });
      expectError(res, 403, 'insufficient_scope');
    },
  );
});

describe('a token with the scope', () => {
  const token = tokenWithout();

  it.each(operations.filter((o) => o.scope && o.method === 'GET').map((o) => [o.key, o] as const))(
    '%s answers as to its owner',
    async (_, operation) => {
      const path = fill(operation.path);
      const owner = await t.request('GET', path, { token: fay.token });
      const asToken = await t.request('GET', path, { token: await token });
      expect(asToken.status, JSON.stringify(asToken.body)).toBe(owner.status);
      // The timer carries the server's clock; files are compared by status.
      if (owner.status === 200 && !/download|illustration|timer/.test(path)) expect(asToken.body).toEqual(owner.body);
    },
  );
});
