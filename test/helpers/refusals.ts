import { expect } from 'vitest';
import type { ErrorCode } from '../../src/http/errors';
import { errorOf, expectError } from './factories';
import type { ApiResponse, TestServer } from './server';

/*
 * What a client sees of input a route refuses: the contract's error, and for a wrong field its
 * name in the first detail (docs/api.md#authentication-and-errors).
 */

/** Each body is refused with 400 `invalid_request`, its first detail naming the field at fault. */
export async function expectFieldsRefused(
  send: (body: unknown) => Promise<ApiResponse>,
  cases: ReadonlyArray<readonly [body: unknown, path: string]>,
): Promise<void> {
  for (const [body, path] of cases) {
    const res = await send(body);
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details?.[0]?.path, JSON.stringify(body).slice(0, 200)).toBe(path);
  }
}

/**
 * A body the route does not read (`body` sent as `contentType`, without JSON encoding) is refused
 * with `status` and `code`: by default 415 for another media type.
 */
export async function expectRawBodyRefused(
  t: TestServer,
  request: { method?: string; path: string; token: string },
  raw: { body: string; contentType: string },
  [status, code]: [number, ErrorCode] = [415, 'unsupported_media_type'],
): Promise<void> {
  const res = await t.request(request.method ?? 'POST', request.path, {
    token: request.token,
    rawBody: raw.body,
    headers: { 'content-type': raw.contentType },
  });
  expectError(res, status, code);
}
