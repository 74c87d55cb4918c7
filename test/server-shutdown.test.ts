import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed, vi } from 'vitest';
import { testConfig } from '../src/config';
import { createDeps } from '../src/create-deps';
import { queryRows } from '../src/db/sql';
import { createServer } from '../src/server';
import { useServer, useUsers } from './helpers/cast';
import { seedCard, seedWorkshop } from './helpers/factories';
import { fleetUser, fleetWorkshop, type FleetUser } from './helpers/fleet-scene';
import { holdWriteLock } from './helpers/locks';
import { listeningPort, serverCommand, startProcess } from './helpers/processes';
import { dropPostgresDatabase, freshPostgresDatabase, testStore } from './helpers/store';
import { quietFor, until } from './helpers/wait';
import { repetitions } from './helpers/matrix';

/*
 * `main.ts` gives a clean shutdown 10 s before it exits anyway, so what `close()` waits for (the
 * sync endpoint, the mail being sent, the export being made) shares one limit rather than adding up.
 *
 * Among the slowest files (10 to 15 s on each store in `test:all`, half that in `npm test`): the
 * drain under load starts the server as production does (a process importing it from source) and
 * lets at least a hundred writes flow before stopping it, three times (once in `npm test`); the stuck endpoint and mail are held until the shared limit
 * runs out.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** An SMTP server that takes connections and never greets: a send on it hangs until `hangUp`. */
async function silentSmtp(): Promise<{ port: number; hangUp(): void }> {
  const held: Socket[] = [];
  const server = createTcpServer((socket) => held.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hangUp = () => {
    for (const socket of held) socket.destroy();
    server.close();
  };
  return { port: (server.address() as { port: number }).port, hangUp };
}

interface Outcome {
  title: string;
  /** 0: no answer (the connection was refused or cut). */
  status: number;
  connection: string | undefined;
  retryAfter: string | undefined;
  code: string | undefined;
}

/** One card write (on `agent`'s kept-alive connection, when given), and how it was answered. */
function createCard(
  agent: Agent | undefined,
  port: number,
  token: string,
  workshopId: string,
  body: object,
  extraHeaders: Record<string, string> = {},
): Promise<Omit<Outcome, 'title'>> {
  const payload = JSON.stringify(body);
  const unanswered = { status: 0, connection: undefined, code: undefined, retryAfter: undefined };
  return new Promise((resolve) => {
    const sent = httpRequest({
      host: '127.0.0.1',
      port,
      agent,
      method: 'POST',
      path: `/v1/workshops/${workshopId}/cards`,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        ...extraHeaders,
      },
    });
    sent.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const code = res.statusCode! >= 400 ? (JSON.parse(text) as { error: { code: string } }).error.code : undefined;
        resolve({
          status: res.statusCode!,
          connection: res.headers.connection,
          code,
          retryAfter: res.headers['retry-after'],
        });
      });
      res.on('error', () => resolve(unanswered));
    });
    sent.on('error', () => resolve(unanswered));
    sent.end(payload);
  });
}

describe('shutdown', () => {
  it('waits for a stuck sync endpoint and a hanging mail send side by side, within one limit', async () => {
    const smtp = await silentSmtp();
    const dir = mkdtempSync(join(tmpdir(), 'workshops-shutdown-'));
    const deps = await createDeps(
      testConfig({
        databasePath: join(dir, 'test.db'),
        filesDir: join(dir, 'files'),
        smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
      }),
    );
    const realClose = deps.collab.close.bind(deps.collab);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const failed = async () =>
      Number(
        (
          await queryRows<{ n: number }>(
            deps.database.db,
            sql`SELECT count(*) AS n FROM outbox WHERE last_error IS NOT NULL`,
          )
        )[0]!.n,
      );
    cleanups.push(async () => {
      // The send still hanging ends, and is recorded as failed, before the database closes.
      smtp.hangUp();
      await until(async () => (await failed()) > 0, 'the hung send recorded as failed', 3_000);
      logged.mockRestore();
      await realClose();
      await deps.database.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const limitMs = 1_000;
    const server = await createServer(deps, {
      port: 0,
      hostname: '127.0.0.1',
      closeLimitMs: limitMs,
      shutdownGraceMs: 200,
    });
    deps.collab.close = () => new Promise<void>(() => {});

    const signup = await fetch(`${server.url}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'shut@example.com', password: 'correct horse battery', name: 'Shut' }),
    });
    expect(signup.status).toBe(201);
    const attempts = async () =>
      Number(
        (await queryRows<{ n: number }>(deps.database.db, sql`SELECT coalesce(max(attempts), 0) AS n FROM outbox`))[0]!
          .n,
      );
    await until(async () => (await attempts()) > 0, 'the confirmation mail being sent', 3_000);

    const started = Date.now();
    await server.close();
    const took = Date.now() - started;
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('closing the sync endpoint took longer'));
    expect(console.error).toHaveBeenCalledWith(expect.stringContaining('finishing the mail being sent took longer'));
    expect(took).toBeLessThan(2 * limitMs);
  });
});

/*
 * A deploy drains an instance while people write (docs/operations.md#deploys-without-losing-anyone): whatever the drain
 * does to a request, a write that commits is answered, so a client that got no answer may retry
 * it without writing it twice; a request arriving after the drain began is refused with 503 and
 * `Connection: close`, so the client sends it elsewhere.
 */
describe('a drain under load', () => {
  const WRITERS = 20;
  // Each round starts a process and drains it at another moment of the writes.
  const ROUNDS = repetitions(3, 1);

  let folder: string;
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'workshops-drain-'));
    if (testStore === 'postgres') databaseUrl = await freshPostgresDatabase();
  });
  afterAll(async () => {
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
    rmSync(folder, { recursive: true, force: true });
  });

  /** The titles of the cards stored in the workshop, read from the database itself. */
  async function storedTitles(workshopId: string): Promise<Set<string>> {
    if (databaseUrl) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ title: string }>('SELECT title FROM cards WHERE workshop_id = $1', [
          workshopId,
        ]);
        return new Set(rows.map((row) => row.title));
      } finally {
        await client.end();
      }
    }
    const sqlite = new BetterSqlite3(join(folder, 'workshops.db'), { readonly: true });
    try {
      return new Set(
        (
          sqlite.prepare('SELECT title FROM cards WHERE workshop_id = ?').all(workshopId) as Array<{ title: string }>
        ).map((row) => row.title),
      );
    } finally {
      sqlite.close();
    }
  }

  it('answers every write it commits, and refuses what arrives after it began with 503 and Connection: close', async () => {
    const env = {
      PORT: '0',
      DATABASE_PATH: join(folder, 'workshops.db'),
      FILES_DIR: join(folder, 'files'),
      LOG_REQUESTS: '0',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, SECRET: 'drain-test-secret-drain-test-secret' } : {}),
    };
    let scene: { fay: FleetUser; workshop: Awaited<ReturnType<typeof fleetWorkshop>> } | undefined;
    const rounds: string[] = [];
    const problems: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const run = startProcess(serverCommand(), env);
      onTestFailed(() =>
        console.log(`--- round ${round}\n${run.stdout().slice(-4_000)}\n${run.stderr().slice(-4_000)}`),
      );
      const port = await listeningPort(run);
      const url = `http://127.0.0.1:${port}`;
      if (!scene) {
        const fay = await fleetUser(url, 'Fay');
        scene = { fay, workshop: await fleetWorkshop(url, fay, []) };
      }
      const { fay, workshop } = scene;

      const outcomes: Outcome[] = [];
      const answersAfterDrain: Outcome[] = [];
      // The drain has begun once the instance says so (its server refuses from that moment).
      let draining = false;
      run.child.stdout!.on('data', () => (draining ||= run.stdout().includes('SIGTERM:')));
      let exited = false;
      const writer = async (index: number) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let i = 0; !exited; i++) {
          const title = `Round ${round} writer ${index} card ${i}`;
          const sentWhileDraining = draining;
          const outcome = {
            title,
            ...(await createCard(agent, port, fay.token, workshop.id, {
              type: 'idea',
              title,
              parent: workshop.clusterId,
            })),
          };
          outcomes.push(outcome);
          if (sentWhileDraining && outcome.status !== 0) answersAfterDrain.push(outcome);
          // Refused or cut: a client would go to another instance; this one tries here again.
          if (outcome.status === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        }
        agent.destroy();
      };
      const writers = Array.from({ length: WRITERS }, (_, index) => writer(index));
      await until(() => outcomes.filter((outcome) => outcome.status === 201).length >= 100, 'writes flowing', 15_000);

      run.child.kill('SIGTERM');
      const exitCode = await run.exited;
      exited = true;
      await Promise.all(writers);
      expect(exitCode).toBe(0);

      const stored = await storedTitles(workshop.id);
      const committedUnanswered = outcomes.filter((outcome) => outcome.status !== 201 && stored.has(outcome.title));
      const answeredMissing = outcomes.filter((outcome) => outcome.status === 201 && !stored.has(outcome.title));
      const wrongRefusals = outcomes.filter(
        (outcome) =>
          outcome.status !== 201 &&
          outcome.status !== 0 &&
          !(
            outcome.status === 503 &&
            outcome.code === 'service_unavailable' &&
            outcome.connection === 'close' &&
            outcome.retryAfter === '1'
          ),
      );
      // What was sent after the drain began and answered at all was refused, on a connection closing.
      const servedAfterDrain = answersAfterDrain.filter((outcome) => outcome.status !== 503);
      const byStatus = new Map<number, number>();
      for (const outcome of outcomes) byStatus.set(outcome.status, (byStatus.get(outcome.status) ?? 0) + 1);
      const statuses = [...byStatus].map(([status, n]) => `${status === 0 ? 'no answer' : status} ×${n}`).join(', ');
      rounds.push(
        `round ${round} (${statuses}): committed but unanswered ${committedUnanswered.length}, answered but not stored ${answeredMissing.length}, ` +
          `refused otherwise ${wrongRefusals.length}, served after the drain began ${servedAfterDrain.length}`,
      );
      for (const outcome of [...committedUnanswered, ...answeredMissing, ...wrongRefusals, ...servedAfterDrain])
        problems.push(`round ${round}: ${JSON.stringify(outcome)}`);
    }
    expect({ rounds, problems: problems.slice(0, 10) }).toEqual({
      rounds: rounds.map((line) =>
        line.replace(
          /: committed.*/,
          ': committed but unanswered 0, answered but not stored 0, refused otherwise 0, served after the drain began 0',
        ),
      ),
      problems: [],
    });
  }, 90_000);
});

/*
 * A request still running when the grace period ends has its connection cut: it must not commit
 * afterwards, unanswered. Here a write waits for a lock another connection holds (as another
 * instance would) past the grace period, and gets it while the drain is cutting.
 */
describe("the drain's cut-off", () => {
  const GRACE_MS = 200;
  const t = useServer({}, { drain: { shutdownGraceMs: GRACE_MS } });
  const [fay] = useUsers(t, 'Fay');

  it('stops a write stuck past the grace period: it rolls back and answers 503, never commits unanswered', async () => {
    const workshop = await seedWorkshop(t, fay);
    const cluster = await seedCard(t, workshop.id, fay, { type: 'cluster', title: 'Ideas' });
    const lock = await holdWriteLock(t, { table: 'workshops', column: 'id', value: workshop.id });
    const title = 'Written while the drain cuts';
    // Keyed, as the SDK sends it: the refused write frees its key, so the retry elsewhere runs rather than waiting on it.
    const answer = createCard(
      undefined,
      t.server.port,
      fay.token,
      workshop.id,
      { type: 'idea', title, parent: cluster.id },
      { 'idempotency-key': 'cut-off-write' },
    );
    await quietFor(150, 'the write reaching the held lock');

    const closing = t.server.close();
    // The grace period ends with the write still waiting; the lock is free well within its second of waiting.
    await quietFor(GRACE_MS + 250, 'the grace period ending');
    await lock.release();
    const outcome = await answer;
    await closing;
    await quietFor(300, 'a write whose connection was cut committing after all');

    const stored = await t.rows<{ title: string }>(sql`SELECT title FROM cards WHERE workshop_id = ${workshop.id}`);
    expect(stored.map((card) => card.title)).toEqual(['Ideas']);
    expect(outcome).toMatchObject({ status: 503, code: 'service_unavailable', connection: 'close', retryAfter: '1' });
    expect(await t.rows(sql`SELECT key FROM idempotency_keys`)).toEqual([]);
  });
});
