import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toErrorResponse } from '../src/http/errors';
import type { AppEnv } from '../src/http/env';
import { observeRequests } from '../src/http/middleware/observe-requests';
import { Metrics } from '../src/ops/metrics';
import { useServer, useUsers } from './helpers/cast';
import { listeningPort, serverCommand, startProcess } from './helpers/processes';
import { until } from './helpers/wait';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const t = useServer();
const [user] = useUsers(t, 'Tracy');

const idOf = async (path: string, headers: Record<string, string> = {}) =>
  (await fetch(`${t.url}${path}`, { headers })).headers.get('x-request-id');

describe('X-Request-Id', () => {
  it("sends back the client's id when it is a safe short token", async () => {
    for (const given of ['abc-123', 'trace_9.Z', 'a', 'x'.repeat(64), 'b6f1c0de-2f5a-4c53-9d7e-0c1e2a3b4c5d']) {
      expect(await idOf('/health', { 'x-request-id': given }), given).toBe(given);
    }
  });

  it('makes a new one when the client sent none, or one that is not a safe short token', async () => {
    const unsafe = [
      '',
      'x'.repeat(65),
      'y'.repeat(200),
      'has space',
      'semi;colon',
      'quote"d',
      'new\tline',
      'ümlaut',
      '../../etc',
      '{"json":1}',
    ];
    const made = [await idOf('/health')];
    for (const given of unsafe) {
      const id = await idOf('/health', { 'x-request-id': given });
      expect(id, JSON.stringify(given)).toMatch(UUID);
      made.push(id);
    }
    // Each request gets its own.
    expect(new Set(made).size).toBe(made.length);
  });

  it('is on every answer: errors, refusals, pages and other routes alike', async () => {
    const answers = [
      await fetch(`${t.url}/v1/workshops/nope`, { headers: { authorization: `Bearer ${user.token}` } }),
      await fetch(`${t.url}/v1/workshops`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
      await fetch(`${t.url}/no/such/path`),
      await fetch(`${t.url}/health`, { method: 'DELETE' }),
      await fetch(`${t.url}/signup`),
      await fetch(`${t.url}/ready`),
      await fetch(`${t.url}/metrics`),
      await fetch(`${t.url}/v1/user/me`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
      }),
    ];
    for (const res of answers) expect(res.headers.get('x-request-id'), `${res.url} ${res.status}`).toMatch(UUID);
    // Browser apps may read it.
    const crossOrigin = await fetch(`${t.url}/health`, { headers: { origin: 'https://app.example' } });
    expect(crossOrigin.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });
});

describe('an answer whose headers cannot change', () => {
  it('still gets the id, on a copy', async () => {
    const app = new Hono<AppEnv>()
      .use(observeRequests(new Metrics()))
      .get('/moved', () => Response.redirect('https://example.test/elsewhere', 302));
    const res = await app.request('/moved', { headers: { 'x-request-id': 'moved-1' } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.test/elsewhere');
    expect(res.headers.get('x-request-id')).toBe('moved-1');
  });
});

describe('request log lines', () => {
  it("carry the request's id, the client's or the one made", async () => {
    // The service as `npm start` runs it, logging to its stdout.
    const dir = mkdtempSync(join(tmpdir(), 'workshops-request-log-'));
    const run = startProcess(serverCommand(), {
      PORT: '0',
      LOG_REQUESTS: '1',
      DATABASE_PATH: join(dir, 'w.db'),
      FILES_DIR: join(dir, 'files'),
    });
    try {
      const base = `http://127.0.0.1:${await listeningPort(run)}`;
      const given = await fetch(`${base}/health`, { headers: { 'x-request-id': 'trace-42' } });
      const made = await fetch(`${base}/v1/workshops/nope`, { headers: { 'x-request-id': 'not safe!' } });
      expect(given.headers.get('x-request-id')).toBe('trace-42');
      const entries = () =>
        run
          .stdout()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      await until(() => entries().length >= 2, 'two request log lines');
      expect(entries()).toEqual([
        expect.objectContaining({
          msg: 'request',
          request_id: 'trace-42',
          method: 'GET',
          path: '/health',
          status: 200,
        }),
        expect.objectContaining({
          msg: 'request',
          request_id: made.headers.get('x-request-id'),
          path: '/v1/workshops/nope',
          status: 401,
        }),
      ]);
      expect(entries()[1]!.request_id).toMatch(UUID);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('of a request that failed', () => {
    afterEach(() => vi.restoreAllMocks());

    it("carry the request's id into the error log", async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      const app = new Hono<AppEnv>().use(observeRequests(new Metrics())).get('/broken', () => {
        throw new Error('a bug');
      });
      app.onError(toErrorResponse);
      const res = await app.request('/broken', { headers: { 'x-request-id': 'failing-7' } });
      expect(res.status).toBe(500);
      expect(res.headers.get('x-request-id')).toBe('failing-7');
      expect(errors).toHaveBeenCalledTimes(1);
      expect(errors.mock.calls[0]![0]).toBe('[error] GET /broken request_id=failing-7');
      expect(errors.mock.calls[0]![1]).toBeInstanceOf(Error);
    });
  });
});
