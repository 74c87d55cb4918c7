import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServer, useUsers } from './helpers/cast';
import type { OpenApiDocument } from './helpers/openapi';
import type { ApiError } from './helpers/server';

/*
 * Bad input anywhere gets a 4xx in the contract's shape, never a 500: every documented operation
 * is called with path parameters that exist, that don't, and with random JSON bodies and queries.
 */

const t = useServer();
const [owner] = useUsers(t, 'Owner');
let ids: Record<string, string>;
let operations: Array<{ method: string; path: string }>;

beforeAll(async () => {
  // Every fixture made here is a resource with an id; that is all this suite reads of them.
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await t.request<{ id: string }>(method, path, { token: owner.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const workshop = await api('POST', '/v1/workshops', { title: 'Robust' });
  const cluster = await api('POST', `/v1/workshops/${workshop.id}/cards`, { type: 'cluster', title: 'C' });
  const idea = await api('POST', `/v1/workshops/${workshop.id}/cards`, {
    type: 'idea',
    title: 'I',
    parent: cluster.id,
  });
  const step = await api('POST', `/v1/workshops/${workshop.id}/steps`, { name: 'S' });
  const criterion = await api('POST', `/v1/workshops/${workshop.id}/criteria`, { title: 'Impact', scale: 1 });
  const section = await api('POST', `/v1/workshops/${workshop.id}/sections`, { title: 'Pros' });
  const vote = await api('POST', `/v1/workshops/${workshop.id}/cards/${idea.id}/votes`, { value: 1 });
  const org = await api('POST', '/v1/organizations', { name: 'Org' });
  ids = {
    workshop_id: workshop.id,
    organization_id: org.id,
    card_id: idea.id,
    step_id: step.id,
    criterium: criterion.id,
    section: section.id,
    vote: vote.id,
  };
  const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
  operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })),
  );
});

/** Fills path parameters: real ids where the name says which, the workshop otherwise, or junk. */
function fill(path: string, junk: boolean): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (junk) return encodeURIComponent(name === 'id' ? '%%%' : 'does-not-exist');
    if (name === 'id') {
      if (path.includes('/organizations/{id}')) return ids.organization_id!;
      if (path.endsWith('/votes/{id}')) return ids.vote!;
      if (path.endsWith('/cards/{id}')) return ids.card_id!;
      if (path.endsWith('/steps/{id}')) return ids.step_id!;
      if (path.endsWith('/criteria/{id}')) return ids.criterium!;
      if (path.endsWith('/sections/{id}')) return ids.section!;
      return ids.workshop_id!;
    }
    return ids[name] ?? 'unknown';
  });
}

function expectClientError(res: { status: number; body: unknown }, label: string) {
  expect(res.status, `${label} → ${res.status} ${JSON.stringify(res.body)}`).toBeLessThan(500);
  if (res.status >= 400) {
    const { error } = (res.body ?? {}) as Partial<ApiError>;
    expect(typeof error?.code, label).toBe('string');
    expect(typeof error?.message, label).toBe('string');
  }
}

// Routes that would end the session or the fixtures the other calls rely on.
const SKIP = new Set([
  'POST /v1/auth/logout',
  'DELETE /v1/workshops/{id}',
  'DELETE /v1/organizations/{id}/members/{member_id}',
]);

describe('robustness', () => {
  it('answers unknown and malformed path parameters with 4xx', async () => {
    for (const { method, path } of operations) {
      if (SKIP.has(`${method} ${path}`) || !path.includes('{')) continue;
      const res = await t.request(method, fill(path, true), {
        token: owner.token,
        ...(method === 'GET' ? {} : { body: {} }),
      });
      expectClientError(res, `${method} ${path}`);
    }
  });

  it('answers random JSON bodies and queries with 4xx or success, never 500', async () => {
    const writes = () => operations.filter(({ method, path }) => method !== 'GET' && !SKIP.has(`${method} ${path}`));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes()),
        fc.oneof(
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ value: v, title: v, type: v, view: v, vote_limit: v, prefs: v })),
        ),
        async ({ method, path }, body) => {
          const res = await t.request(method, fill(path, false), {
            token: owner.token,
            rawBody: body,
            headers: { 'content-type': 'application/json' },
          });
          expectClientError(res, `${method} ${path} ${body.slice(0, 200)}`);
        },
      ),
      { numRuns: 300 },
    );
    const reads = operations.filter(({ method }) => method === 'GET');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...reads),
        fc.dictionary(
          fc.constantFrom(
            'type',
            'parent',
            'aside',
            'page',
            'per_page',
            'filters',
            'since',
            'until',
            'state',
            'role',
            'owner',
            'attributes',
            'criterium_id',
            'section_id',
          ),
          fc.string(),
        ),
        async ({ method, path }, query) => {
          const qs = new URLSearchParams(query).toString();
          const res = await t.request(method, `${fill(path, false)}?${qs}`, { token: owner.token });
          expectClientError(res, `${method} ${path}?${qs}`);
        },
      ),
      { numRuns: 200 },
    );
  });
});
