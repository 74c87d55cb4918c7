import { describe, expect, it } from 'vitest';
import type { WorkshopOutput } from '../src/domain/workshops';
import { useServer, useUsers } from './helpers/cast';
import { errorOf, expectError, seedWorkshop } from './helpers/factories';
import { startTestServer } from './helpers/server';

/* What a browser app on another origin, and a hand-written client, meet at the HTTP level. */

const t = useServer();
const [user] = useUsers(t, 'Bea');

describe('CORS', () => {
  it('answers preflights before authentication', async () => {
    const res = await fetch(`${t.url}/v1/workshops`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('lets a page read the answer and the paging headers', async () => {
    const res = await t.request('GET', `/v1/workshops/${(await seedWorkshop(t, user)).id}/events`, {
      token: user.token,
      headers: { origin: 'https://app.example.test' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Total-Count');
    expect(res.headers.get('access-control-expose-headers')).toContain('Link');
  });

  it('allows only the configured origins when CORS_ORIGINS lists them, for REST and Socket.IO', async () => {
    const listed = await startTestServer({ corsOrigins: ['https://app.example.test'] });
    try {
      const preflight = (origin: string) =>
        fetch(`${listed.url}/v1/workshops`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'GET' },
        });
      expect((await preflight('https://app.example.test')).headers.get('access-control-allow-origin')).toBe(
        'https://app.example.test',
      );
      expect((await preflight('https://evil.example.test')).headers.get('access-control-allow-origin')).toBeNull();
      const handshake = (origin: string) =>
        fetch(`${listed.url}/socket.io/?EIO=4&transport=polling`, { headers: { origin } });
      expect((await handshake('https://app.example.test')).headers.get('access-control-allow-origin')).toBe(
        'https://app.example.test',
      );
      expect((await handshake('https://evil.example.test')).headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await listed.close();
    }
  });
});

describe('methods', () => {
  it('answers 405 with Allow for a path that exists, before authentication', async () => {
    const signup = await t.request('GET', '/v1/auth/signup');
    expectError(signup, 405, 'method_not_allowed');
    expect(signup.headers.get('allow')).toBe('OPTIONS, POST');
    const workshop = await t.request('PATCH', '/v1/workshops/some-id', { token: user.token });
    expectError(workshop, 405, 'method_not_allowed');
    expect(workshop.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, PUT');
  });

  it('keeps 404 for paths that do not exist, and 401 for unknown /v1 paths without a token', async () => {
    expectError(await t.request('GET', '/nowhere'), 404, 'not_found');
    expectError(await t.request('GET', '/v1/nowhere'), 401, 'unauthenticated');
    expectError(await t.request('GET', '/v1/nowhere', { token: user.token }), 404, 'not_found');
  });
});

describe('empty bodies', () => {
  it('reads an empty body as {} whether or not it declares JSON', async () => {
    const workshop = await seedWorkshop(t, user, { title: 'Same' });
    for (const headers of [{}, { 'content-type': 'application/json' }] as Array<Record<string, string>>) {
      const res = await t.request<WorkshopOutput>('PUT', `/v1/workshops/${workshop.id}`, {
        token: user.token,
        rawBody: '',
        headers,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.title).toBe('Same');
    }
    const res = await t.request('POST', `/v1/workshops/${workshop.id}/steps`, {
      token: user.token,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details).toEqual([{ path: 'name', message: 'name is required.' }]);
  });

  it('still refuses malformed JSON', async () => {
    const res = await t.request('POST', '/v1/workshops', {
      token: user.token,
      rawBody: '{"title": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400, 'invalid_request');
  });
});
