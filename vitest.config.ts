import { configDefaults, defineConfig } from 'vitest/config';
import { postgresBinaries } from './scripts/postgres-cluster';

/*
 * The suite runs twice: on SQLite (the default store) and on PostgreSQL (`DATABASE_URL`), a
 * cluster the `postgres` project starts for the run (`test/setup/postgres.ts`). Without
 * PostgreSQL installed, only SQLite runs, unless REQUIRE_POSTGRES=1 makes that an error (CI).
 */
const withPostgres = postgresBinaries() !== null || process.env.REQUIRE_POSTGRES === '1';
if (!withPostgres)
  console.warn('PostgreSQL is not installed: the suite runs on SQLite only (REQUIRE_POSTGRES=1 makes this an error).');

const include = ['test/**/*.test.ts'];
/**
 * The browser pages' tests drive chromium through what the SDK sees; the store under them is
 * tested on both by every other file, so they run once, on SQLite, to keep the run within its time.
 */
const BROWSER_PAGES = ['test/screen.test.ts', 'test/participant-page.test.ts'];
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
    // Each file starts its own server and database; two workers fit the 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'sqlite', include, exclude: [...configDefaults.exclude, ...pagesOnce] } },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include,
                exclude: [...configDefaults.exclude, ...BROWSER_PAGES, ...faultsLater],
                env: { TEST_STORE: 'postgres' },
                globalSetup: ['test/setup/postgres.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
