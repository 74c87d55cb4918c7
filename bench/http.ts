/**
 * REST throughput, side by side in one run: this checkout on SQLite and on PostgreSQL, and a
 * baseline commit on SQLite (`--baseline=<rev>`, by default the last commit before the data layer
 * became asynchronous; `--baseline=none` skips it). `--store=sqlite|postgres` measures one store
 * only. Each server runs in its own process with production's configuration (NODE_ENV=production,
 * every request logged to a file), over a fresh database, and is measured by autocannon against, in
 * turn: a hello-JSON route of the same app (the ceiling), GET /v1/workshops/:id, GET …/cards of a
 * 500-card workshop beside a route serving a precomputed body of the same size, POST …/votes by 50
 * users into one workshop, votes by the same 50 users spread over 20 workshops, the workshop read
 * while 1,500 votes a second flow into another workshop, and ideas written by the 50 users into the
 * 20 workshops (one transaction each, unbatched: `card-writes`). The servers take each load one after
 * another, round after round (`BENCH_ROUNDS`, 3; `BENCH_DURATION` seconds each, 5), and each
 * figure is the median of its rounds. PostgreSQL is a throwaway cluster on this machine with its
 * default (durable) settings, measured once more through a loopback proxy adding 1 ms each way, as
 * between machines. `--loads=votes,cards` measures only those (with the ceilings they are read against).
 * `--private` makes a private, anonymous step current in the measured workshop (`cards_visible:
 * own`, `authors: hidden`, docs/api.md#private-writing-and-anonymous-authors) and reads the
 * workshop and its cards as a participant; its baseline is by default the last commit before
 * private writing existed.
 *
 * Targets (2 cores, load generator on the same machine): this checkout on SQLite within 10 % of the
 * baseline's ratios and at the service's own ratios to the ceilings; PostgreSQL at its own rates and
 * shares of SQLite's, on this machine and through the proxy. Their figures are in
 * bench/_http-report.ts, which checks them; the loads and the data seeded for them are in
 * bench/_http-loads.ts.
 */
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '../scripts/postgres-cluster';
import { baselineCheckout } from './_baseline';
import { LOADS, runLoad, seed, type Measured } from './_http-loads';
import { printReport, printRow, type Run, type Servers } from './_http-report';
import { startLatencyProxy } from './_latency-proxy';
import { startBenchServer, type BenchServerOptions } from './_server';

/** Rounds of every load on every server; the figures are each one's median. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The last commit whose data layer was synchronous (SQLite only). */
const DEFAULT_BASELINE = 'c8c4e68';
/** The last commit before private writing and anonymous authors, the baseline of `--private`. */
const PRIVATE_BASELINE = '0da8795';

const flag = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
const stores = flag('store') ? [flag('store')!] : ['sqlite', 'postgres'];
// `--loads=ceiling,votes` measures only those (quicker, when working on one of them).
const loads = flag('loads')?.split(',');
const privateStep = process.argv.includes('--private');
const baselineRev = flag('baseline') ?? (privateStep ? PRIVATE_BASELINE : DEFAULT_BASELINE);
const run: Run = { rounds: ROUNDS, loads, privateStep };

async function prepare(label: string, options: BenchServerOptions, only?: string[]): Promise<Measured> {
  const server = await startBenchServer(options);
  try {
    return { label, server, seeded: await seed(server, privateStep), ...(only ? { only } : {}), rows: new Map() };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

async function freshDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: `${cluster.baseUrl}postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return `${cluster.baseUrl}${name}`;
}

/** The servers of the run, and what they run on, to stop when it ends (however far it got). */
interface Started extends Servers {
  cluster?: PostgresCluster;
  proxy?: Awaited<ReturnType<typeof startLatencyProxy>>;
}

/** PostgreSQL on this machine, then the same through the proxy 1 ms away (three loads only). */
async function startPostgres(started: Started) {
  const cluster = (started.cluster = await startPostgresCluster(['max_connections=200']));
  started.measured.push(
    (started.postgres = await prepare('this checkout, PostgreSQL', {
      databaseUrl: await freshDatabase(cluster, 'bench_local'),
    })),
  );
  const proxy = (started.proxy = await startLatencyProxy({ host: '127.0.0.1', port: cluster.port }, 1));
  const url = (await freshDatabase(cluster, 'bench_remote')).replace(`:${cluster.port}/`, `:${proxy.port}/`);
  started.measured.push(
    (started.proxied = await prepare('this checkout, PostgreSQL 1 ms away', { databaseUrl: url }, [
      'ceiling',
      'workshop',
      'votes',
    ])),
  );
}

/** Every server of the stores asked for, started and seeded, each added to `started` as it comes. */
async function startServers(started: Started) {
  if (baselineRev !== 'none' && stores.includes('sqlite')) {
    const dir = baselineCheckout(baselineRev);
    started.measured.push(
      (started.baseline = await prepare(`baseline ${baselineRev}, SQLite`, { entry: `${dir}/bench/server.ts` })),
    );
  }
  if (stores.includes('sqlite')) started.measured.push((started.sqlite = await prepare('this checkout, SQLite', {})));
  if (stores.includes('postgres')) await startPostgres(started);
}

/** Whether `--loads` asks for a load: the ceiling always, the precomputed body with the cards. */
const wanted = (name: string) =>
  !loads || loads.includes(name) || name === 'ceiling' || (name === 'precomputed' && loads.includes('cards'));

/** Each load on one server after the other, round after round. */
async function runRounds(measured: Measured[]) {
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`\n--- round ${round} of ${ROUNDS}`);
    for (const name of LOADS.filter(wanted)) {
      for (const m of measured) {
        if (m.only && !m.only.includes(name)) continue;
        const row = await runLoad(m, name);
        m.rows.set(name, [...(m.rows.get(name) ?? []), row]);
        printRow(m, name, row);
      }
    }
  }
}

const started: Started = { measured: [] };
try {
  // Every server is started and seeded first; then each load runs on one server after the other,
  // round after round, so a slower or faster moment of the machine falls on all of them alike.
  await startServers(started);
  await runRounds(started.measured);
} finally {
  for (const m of started.measured) await m.server.stop();
  await started.proxy?.close();
  started.cluster?.stop();
}
printReport(started, run);
