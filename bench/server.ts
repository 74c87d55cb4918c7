/**
 * The server a bench measures, in its own process so the load generator does not share its
 * event loop. Same app as production, plus a hello-JSON route on that app as the ceiling.
 * Prints "listening <port>" once ready.
 */
import { testConfig } from '../src/config';
import { createApp } from '../src/app';
import { createDeps } from '../src/create-deps';
import { createServer } from '../src/server';

const databasePath = process.env.DATABASE_PATH;
const filesDir = process.env.FILES_DIR;
if (!databasePath || !filesDir) throw new Error('DATABASE_PATH and FILES_DIR are required');
// With DATABASE_URL the server runs on PostgreSQL, as in production.
const databaseUrl = process.env.DATABASE_URL || undefined;
const databasePoolSize = Number(process.env.DATABASE_POOL_SIZE ?? 10);
// Production's durability on SQLite (every commit synced), unless SQLITE_SYNCHRONOUS=normal.
const sqliteSynchronous = process.env.SQLITE_SYNCHRONOUS === 'normal' ? 'normal' : 'full';

const plans = {
  free: { name: 'free', workshops_max_attendees: 100_000 },
  team: { name: 'team', workshops_max_attendees: 100_000 },
};
// Production's configuration: every request logged (stdout goes to a file, as on a server).
// Wrong-code limits are lifted, unless a bench measures them (BENCH_JOIN_LIMITS=default: the room).
const joinLimits = process.env.BENCH_JOIN_LIMITS === 'default' ? {} : { joinAttemptsPerMinute: 1_000_000 };
const deps = await createDeps(
  testConfig({
    databasePath,
    databaseUrl,
    databasePoolSize,
    sqliteSynchronous,
    filesDir,
    plans,
    ...joinLimits,
    authAttemptsPerMinute: 1_000_000,
    logRequests: process.env.BENCH_LOG !== '0',
    // The webhook bench's receiver listens on this machine (bench/webhooks.ts).
    ...(process.env.WEBHOOK_ALLOW_PRIVATE === '1' && {
      webhooks: { ...testConfig({ databasePath, filesDir }).webhooks, allowPrivate: true },
    }),
  }),
);
const app = createApp(deps);
app.get('/bench/hello', (c) => c.json({ hello: 'world' }));
// A body made once and served as is: the most a route answering `bytes` bytes of JSON can do.
const precomputed = new Map<number, Uint8Array<ArrayBuffer>>();
app.get('/bench/precomputed', (c) => {
  const bytes = Number(c.req.query('bytes') ?? 1000);
  let body = precomputed.get(bytes);
  if (!body) {
    body = new TextEncoder().encode(JSON.stringify('x'.repeat(Math.max(0, bytes - 2))));
    precomputed.set(bytes, body);
  }
  return c.body(body, 200, { 'Content-Type': 'application/json' });
});
// BENCH_SENDS_WEBHOOKS=0: the outbox is written but not sent (the webhook bench's "writes alone").
const sendsWebhooks = process.env.BENCH_SENDS_WEBHOOKS !== '0';
const server = await createServer(deps, { port: 0, hostname: '127.0.0.1', app, sendsWebhooks });
deps.config.publicUrl = server.url;
// stderr: stdout carries the request log.
console.error(`listening ${server.port}`);

// stop() catches what it awaits, so nothing it does is left unhandled.
process.on('SIGTERM', () => void stop());
async function stop(): Promise<void> {
  try {
    await server.close();
    await deps.database.close();
  } catch (err) {
    console.error('stopping failed', err);
    process.exit(1);
  }
  process.exit(0);
}
