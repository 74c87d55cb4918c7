import { describe, expect, it } from 'vitest';
import type { UserOutput } from '../src/modules/users/schemas';
import { useUsers, useInstances } from './helpers/cast';
import { expectError } from './helpers/factories';

/*
 * Resolved tokens are kept in memory; what would make one stale (a logout, a changed user) is seen
 * at once, also when another instance on the same file made it.
 */

const [a, b] = useInstances(2);
const [ada, bob] = useUsers(a, 'Ada', 'Bob');

describe('resolved tokens', () => {
  it('stop working at once on every instance when logged out on one', async () => {
    // Both instances have resolved the token.
    expect((await a.request('GET', '/v1/user/me', { token: ada.token })).status).toBe(200);
    expect((await b.request('GET', '/v1/user/me', { token: ada.token })).status).toBe(200);
    expect((await a.request('POST', '/v1/auth/logout', { token: ada.token })).status).toBe(204);
    expectError(await b.request('GET', '/v1/user/me', { token: ada.token }), 401, 'unauthenticated');
    expectError(await a.request('GET', '/v1/user/me', { token: ada.token }), 401, 'unauthenticated');
  });

  it('show a change to the user made on another instance', async () => {
    expect((await a.request<UserOutput>('GET', '/v1/user/me', { token: bob.token })).body.name).toBe('Bob');
    expect((await b.request('PUT', '/v1/user/me', { token: bob.token, body: { display_name: 'Robert' } })).status).toBe(
      204,
    );
    expect((await a.request<UserOutput>('GET', '/v1/user/me', { token: bob.token })).body.name).toBe('Robert');
  });
});
