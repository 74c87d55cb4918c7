import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQL } from 'drizzle-orm';
import { testConfig, type Config } from '../../src/config';
import { createDeps } from '../../src/create-deps';
import { tablesOf, type Db, type Schema } from '../../src/db/database';
import { execute, queryRows } from '../../src/db/sql';
import type { AppDeps } from '../../src/deps';
import type { ErrorCode, ErrorDetail } from '../../src/http/errors';
import { createServer, type RunningServer, type ServerOptions } from '../../src/server';
import { checkResponse } from './response-check';
import { dropPostgresDatabase, freshPostgresDatabase, freshSqliteDatabase, testStore } from './store';

/** The contract's error body (docs/api.md#authentication-and-errors). */
export interface ApiError {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/**
 * A response. `T` is the body on success: pass the output type the route's schema exports
 * (`t.request<CardOutput>(…)`); a 4xx body is an `ApiError` whatever `T` says.
 */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding (for malformed-body tests and multipart). */
  rawBody?: string | Uint8Array | FormData | Blob;
  headers?: Record<string, string>;
  /** A failure the test provokes on purpose (a broken write): its 500 is not held against the document. */
  provokedFailure?: boolean;
}

export interface TestServer {
  url: string;
  deps: AppDeps;
  server: RunningServer;
  /** The store's read handle, and its tables (the same objects inside `write`). */
  db: Db;
  tables: Schema;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** Rows of a statement, read outside any transaction (either store). */
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** Runs a statement, or `fn`, in a write transaction of its own (tests setting up rows directly). */
  write(query: SQL): Promise<void>;
  write<T>(fn: (tx: Db, tables: Schema) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Serve the same database and files folder as this server (a second instance); its folder stays its own to remove. */
  shareDatabaseOf?: TestServer;
  /** The store of a server of its own: the run's (`TEST_STORE`) unless told. */
  store?: 'sqlite' | 'postgres';
  /** How the server's `close()` drains (shorter than in production, for tests of the drain). */
  drain?: Pick<ServerOptions, 'shutdownGraceMs' | 'closeLimitMs'>;
  /** The port to listen on (a server started again where one stopped); a free one unless told. */
  port?: number;
}

/**
 * Starts the real server on a free port over a fresh store: a SQLite file in a temporary folder
 * (copied from one migrated once), or, in the `postgres` project, a PostgreSQL database of its own
 * copied from the run's template.
 */
export async function startTestServer(
  overrides: Partial<Config> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const shared = options.shareDatabaseOf?.deps.config;
  const dir = shared ? undefined : mkdtempSync(join(tmpdir(), 'workshops-test-'));
  const store = options.store ?? testStore;
  const ownDatabaseUrl =
    !shared && store === 'postgres' && overrides.databaseUrl === undefined ? await freshPostgresDatabase() : undefined;
  if (dir && store === 'sqlite' && overrides.databaseUrl === undefined && overrides.databasePath === undefined)
    freshSqliteDatabase(join(dir, 'test.db'));
  const config = testConfig({
    // A password hash in 2 ms instead of 40: test files sign thousands of people up.
    passwordHashCost: 10,
    // A mail due is sent within 0.1 s rather than within the 1 s of the service's look at the outbox.
    mailPollMs: 100,
    databasePath: shared?.databasePath ?? join(dir!, 'test.db'),
    databaseUrl: shared?.databaseUrl ?? ownDatabaseUrl,
    filesDir: shared?.filesDir ?? join(dir!, 'files'),
    ...(shared ? { secret: shared.secret } : {}),
    ...overrides,
  });
  const deps = await createDeps(config);
  const server = await createServer(deps, { port: options.port ?? 0, hostname: '127.0.0.1', ...options.drain });
  deps.config.publicUrl = overrides.publicUrl ?? server.url;

  async function request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: RequestInit['body'] = options.rawBody as RequestInit['body'];
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${server.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    const contentType = res.headers.get('content-type') ?? '';
    if (contentType.includes('json') && text) parsed = JSON.parse(text);
    // Every answer the suite gets must be one the OpenAPI document describes (status and body).
    if (!options.provokedFailure)
      await checkResponse(server.url, method, path, { status: res.status, contentType, body: parsed });
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  const db = deps.database.db;
  return {
    url: server.url,
    deps,
    server,
    db,
    tables: tablesOf(db),
    request,
    rows: <T>(query: SQL) => queryRows<T>(db, query),
    write: ((what: SQL | ((tx: Db, tables: Schema) => Promise<unknown>)) =>
      deps.database.transaction((tx) =>
        typeof what === 'function' ? what(tx, tablesOf(tx)) : execute(tx, what),
      )) as TestServer['write'],
    async close() {
      await server.close();
      await deps.database.close();
      if (ownDatabaseUrl) await dropPostgresDatabase(ownDatabaseUrl);
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
