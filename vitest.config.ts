import { existsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { postgresBinaries } from './scripts/postgres-cluster';
import FileTimes from './test/setup/file-times';

/*
 * Two projects: `sqlite` (the default store) runs every file; `postgres` (`DATABASE_URL`, a
 * cluster the project starts for the run: `test/setup/postgres.ts`) runs the files whose behaviour
 * depends on the store (STORE_DEPENDENT below) in `npm test`, and every file in `npm run test:all`
 * (TEST_MATRIX=all), which CI runs. Without PostgreSQL installed, only SQLite runs, unless
 * REQUIRE_POSTGRES=1 makes that an error (CI).
 */
const withPostgres = postgresBinaries() !== null || process.env.REQUIRE_POSTGRES === '1';
if (!withPostgres)
  console.warn('PostgreSQL is not installed: the suite runs on SQLite only (REQUIRE_POSTGRES=1 makes this an error).');
const wholeMatrix = process.env.TEST_MATRIX === 'all';

const include = ['test/**/*.test.ts'];

/**
 * The files a contributor's `npm test` runs on PostgreSQL too. Every other file goes through the
 * same repos and the same write runner, and runs on both stores in `test:all`; these are the ones
 * where the two stores behave differently on purpose, or a dialect's SQL is what is tested.
 */
const STORE_DEPENDENT: Record<string, string[]> = {
  // The stores themselves: the write runner and its errors, a database that is busy or away,
  // each dialect's migrations and catalog, the counters and tallies kept by SQL and triggers,
  // and the statements a write or a join costs on each (PostgreSQL locks the workshop's row first).
  'the data layer': [
    'data-layer',
    'database-busy',
    'database-limits',
    'migrations',
    'schema-check',
    'rate-counters',
    'vote-tallies',
    'votes-statements',
    'realtime-resume',
  ],
  // Rules kept by a lock with several instances on one store: PostgreSQL's row locks against
  // SQLite's single writer. Budgets and caps summed in SQL, raced from several servers.
  'locks and budgets under concurrency': [
    'store-concurrency',
    'store-rules',
    'votes-held-workshop',
    'vote-limits.property',
    'limits-across-instances',
    'limits-export-caps',
    'upload-limits',
    'idempotency',
    'collab-locks',
    'collab-instances',
    'collab-placements',
  ],
  // Outboxes several instances take work from (FOR UPDATE SKIP LOCKED on PostgreSQL): mail and
  // the digest, webhook deliveries in order per workshop, the export runner.
  'queues claimed by several instances': ['mail', 'digest', 'webhooks', 'exports-runner'],
  // The exports read a whole workshop in a few big queries (ordering, aggregates, JSON per dialect).
  "exports' queries": ['exports', 'export-privacy'],
  // Instances drained and stopped while writes are in flight, and fleets of processes on one
  // PostgreSQL (most of these run on PostgreSQL only). Not the fleet under faults
  // (test/fleet-faults.test.ts: two minutes of killed and frozen instances, the longest file of
  // all): `npm run test:all` and CI run it, and `TEST_MATRIX=all npm test -- test/fleet-faults.test.ts`.
  'drains and the fleet': ['server-shutdown', 'fleet-drain', 'fleet', 'fleet-vote-burst', 'webhooks-fleet'],
  // The same workshop answered byte for byte alike by both stores.
  'store parity': ['store-parity'],
};
const storeDependent = Object.values(STORE_DEPENDENT)
  .flat()
  .map((name) => `test/${name}.test.ts`);
const missing = storeDependent.filter((file) => !existsSync(file));
if (missing.length) throw new Error(`vitest.config.ts names test files that do not exist: ${missing.join(', ')}`);

/**
 * The browser pages' tests drive chromium through what the SDK sees; the store under them is
 * tested on both by every other file, so they run once, on SQLite, to keep the run within its time.
 */
const BROWSER_PAGES = ['test/screen.test.ts', 'test/participant-page.test.ts', 'test/i18n-join-page.test.ts'];
/**
 * The second run on Node 24 (`.ci/node24`) leaves them out too: what they check is the pages in
 * chromium, which the first run did, and the CI run keeps within its time.
 */
const pagesOnce = process.env.BROWSER_PAGES_DONE === '1' ? BROWSER_PAGES : [];
/**
 * The fleet's fault tests (two minutes of killed and frozen instances) run once in CI: on Node 24,
 * which production runs (`.ci/run` sets FLEET_FAULTS_ON_NODE24=1 for its first run, on Node 20).
 */
const faultsLater = process.env.FLEET_FAULTS_ON_NODE24 === '1' ? ['test/fleet-faults.test.ts'] : [];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // What each file cost goes to .vitest/report.json too (`npm run test:slowest` reads it).
    reporters: ['default', new FileTimes()],
    // Each file starts its own server and database; two workers fit the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    // A worker runs file after file with the modules it loaded (the server, its dependencies,
    // the OpenAPI document's compiled schemas), instead of a fresh process importing them all for
    // every file: on a 2-core machine npm test took 5 min 50 s instead of 10 min 18 s, test:all
    // 9 min 16 s instead of 22 min.
    // Files share no state through them: each starts its own servers and stores, and what a test
    // changes on a shared module (a spy, fake timers) it puts back; vitest restores spies between
    // files. A module mock (`vi.mock`) would reach only modules imported after it: spy on the
    // module's object instead (test/store-rules.test.ts).
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include,
          exclude: [...configDefaults.exclude, ...pagesOnce],
          globalSetup: ['test/setup/sqlite.ts', 'test/setup/server-bundle.ts'],
        },
      },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: wholeMatrix ? include : storeDependent,
                exclude: [...configDefaults.exclude, ...BROWSER_PAGES, ...faultsLater],
                env: { TEST_STORE: 'postgres' },
                // Its files start SQLite servers too (store parity, a second store).
                globalSetup: ['test/setup/sqlite.ts', 'test/setup/postgres.ts', 'test/setup/server-bundle.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
