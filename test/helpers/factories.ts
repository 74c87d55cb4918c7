import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TestServer } from './server';

export interface TestUser {
  token: string;
  id: string;
  email: string;
  name: string;
}

/** Signs a new user up through the API. */
export async function createUser(t: TestServer, name = 'User'): Promise<TestUser> {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}@example.test`;
  const res = await t.request('POST', '/v1/auth/signup', { body: { email, password: 'correct horse battery', name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { token: res.body.token, id: res.body.user.id, email, name };
}

/** Expects the contract's error shape with the given status and code. */
export function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body?.error?.code, JSON.stringify(res.body)).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
}
