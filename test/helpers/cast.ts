import type { SQL } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { WorkshopClient } from '../../client-sdk/src/index';
import { openWorkshop, type LiveWorkshop } from '../../client-sdk/src/live';
import type { Config } from '../../src/config';
import { syncedDoc, type DocClient } from './collab';
import { createUser, type Cast, type TestUser } from './factories';
import { startRedis, type TestRedis } from './redis';
import { FAST_RECONNECT } from './sdk';
import { startTestServer, type RequestOptions, type TestServer, type TestServerOptions } from './server';
import { connectSocket, type LiveClient } from './sockets';

/*
 * A suite's set-up in one line. Each `use…` helper registers its own `beforeAll` / `afterAll`
 * (as Hocuspocus' `newHocuspocus` test util does) and hands back a handle whose members are
 * live once `beforeAll` ran: use them inside tests and hooks, not at the top level of the file.
 * Hooks run in the order of the calls; teardown runs in reverse (vitest's `stack` order).
 */

type Lazy<T> = T | (() => T);
const resolve = <T>(value: Lazy<T>): T => (typeof value === 'function' ? (value as () => T)() : value);

/**
 * Starts something in `beforeAll` and stops it in `afterAll`; the returned getter hands it out
 * once started (reading it earlier, at the top level of a file, is a mistake and says so).
 */
function startedForTheSuite<T>(what: string, start: () => Promise<T>, stop: (value: T) => Promise<void>): () => T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await start();
  });
  afterAll(async () => {
    if (value !== undefined) await stop(value);
  });
  return () => {
    if (value === undefined) throw new Error(`${what} is set up in beforeAll: use it inside a test or hook`);
    return value;
  };
}

/**
 * Starts the real server (port 0, fresh SQLite file) before this file's or describe's tests and
 * closes it after them. Overrides and options may be functions, for values known only once
 * earlier hooks ran (a Redis URL, the server whose database to share).
 */
export function useServer(overrides: Lazy<Partial<Config>> = {}, options: Lazy<TestServerOptions> = {}): TestServer {
  const live = startedForTheSuite(
    'the test server',
    () => startTestServer(resolve(overrides), resolve(options)),
    (server) => server.close(),
  );
  return {
    get url() {
      return live().url;
    },
    get deps() {
      return live().deps;
    },
    get server() {
      return live().server;
    },
    get db() {
      return live().db;
    },
    get tables() {
      return live().tables;
    },
    request<T = unknown>(method: string, path: string, options?: RequestOptions) {
      return live().request<T>(method, path, options);
    },
    rows: <T>(query: SQL) => live().rows<T>(query),
    write: ((what: Parameters<TestServer['write']>[0]) => live().write(what as never)) as TestServer['write'],
    close: () => live().close(),
  };
}

/**
 * `count` instances of one service for the suite: servers on the first one's store, each started
 * with `overrides` (a Redis URL to share, limits).
 */
export function useInstances<N extends 2 | 3 | 4>(count: N, overrides: Lazy<Partial<Config>> = {}): Instances<N> {
  const first = useServer(overrides);
  const others = Array.from({ length: count - 1 }, () => useServer(overrides, () => ({ shareDatabaseOf: first })));
  return [first, ...others] as Instances<N>;
}

type Instances<N extends number, Started extends TestServer[] = []> = Started['length'] extends N
  ? Started
  : Instances<N, [...Started, TestServer]>;

/**
 * Signs up one user per name on `t` before the tests (in order, so creation times follow the
 * names). Each returned user is filled in place, so the array can be destructured at once.
 */
export function useUsers<const Names extends readonly string[]>(
  t: TestServer,
  ...names: Names
): { [K in keyof Names]: TestUser } {
  const users = names.map(() => ({}) as TestUser);
  beforeAll(async () => {
    for (const [index, name] of names.entries()) Object.assign(users[index]!, await createUser(t, name));
  });
  return users as { [K in keyof Names]: TestUser };
}

/**
 * The four people most suites need, on their own server: a facilitator (Fay), a participant
 * (Pat), a second participant (Otto) and a stranger (Stan). `seedWorkshopWith` and
 * `seedCardScene` seed their workshops.
 */
export function useCast(overrides: Lazy<Partial<Config>> = {}): Cast {
  const t = useServer(overrides);
  const [facilitator, participant, other, stranger] = useUsers(t, 'Fay', 'Pat', 'Otto', 'Stan');
  return { t, facilitator, participant, other, stranger };
}

/** A redis-server for this file or describe, stopped after it. */
export function useRedis(): TestRedis {
  const live = startedForTheSuite('redis-server', startRedis, (redis) => redis.stop());
  return {
    get port() {
      return live().port;
    },
    get url() {
      return live().url;
    },
    stop: () => live().stop(),
    start: () => live().start(),
    subscribers: (channel) => live().subscribers(channel),
  };
}

/** Keeps what a test opens and disposes of it after each test; returns the keeper. */
export function disposedAfterEach<C>(dispose: (client: C) => void) {
  const open: C[] = [];
  afterEach(() => {
    for (const client of open.splice(0)) dispose(client);
  });
  return (client: C) => {
    open.push(client);
    return client;
  };
}

/** Socket.IO clients of the tests, closed after each test. */
export function useSockets(t: TestServer) {
  const track = disposedAfterEach<LiveClient>((client) => client.close());
  return {
    /** Keeps `client` to close it after the test. */
    track,
    /** A connected client of `user` on `server` (this file's server unless told). */
    async connected(user: TestUser, server: TestServer = t) {
      return track(await connectSocket(server.url, user.token));
    },
    /** A client of `user` joined to the workshop; fails the test if the join is refused. */
    async joined(user: TestUser, workshopId: string, server: TestServer = t) {
      const client = await this.connected(user, server);
      const ack = await client.join(workshopId);
      if (!ack.ok) throw new Error(`join refused: ${JSON.stringify(ack)}`);
      return client;
    },
  };
}

/** y-websocket clients of the tests, destroyed after each test. */
export function useDocs(t: TestServer) {
  const track = disposedAfterEach<DocClient>((client) => client.destroy());
  return {
    /** Keeps `client` to destroy it after the test. */
    track,
    /** A client of `user` synced with the workshop's document on `server` (this file's server unless told). */
    async synced(workshopId: string, user: TestUser, server: TestServer = t) {
      return track(await syncedDoc(server, workshopId, user.token));
    },
  };
}

/** Opens workshops' live states with `FAST_RECONNECT`, each closed after the test that opened it. */
export function useLiveWorkshops() {
  const track = disposedAfterEach<LiveWorkshop>((live) => live.close());
  return async (api: WorkshopClient, workshopId: string) => track(await openWorkshop(api, workshopId, FAST_RECONNECT));
}
