/**
 * How long the test suite keeps a contributor waiting, beside a baseline commit measured in the
 * same sitting: `npm run bench -- test-suite [--baseline=<rev>]` times, in checkouts of the baseline
 * and of HEAD (both under `.bench/`, so what is measured is what is committed), the baseline's
 * `npm test` and HEAD's `npm test` and `npm run test:all`, in turns (`--rounds=2` repeats the
 * turn), and prints each run's wall time, its tests, and HEAD's times as ratios of the
 * baseline's `npm test`. Nothing else should run on the machine meanwhile: the suite uses its
 * two cores (docs/development.md#how-long-it-takes).
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baselineCheckout } from './_baseline';

const flag = (name: string) =>
  process.argv
    .slice(2)
    .find((a) => a.startsWith(`--${name}=`))
    ?.split('=')[1];

/** The last commit whose `npm test` ran every file on both stores. */
const DEFAULT_BASELINE = '11d1a8d';
const baselineRev = flag('baseline') ?? DEFAULT_BASELINE;
const rounds = Number(flag('rounds') ?? 1);

interface SuiteRun {
  label: string;
  seconds: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** Runs an npm script of the checkout with vitest's JSON report beside its own output. */
function timeScript(label: string, dir: string, script: string): Promise<SuiteRun> {
  const report = join(tmpdir(), `suite-${process.pid}-${label.replace(/\W+/g, '-')}.json`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npm',
      ['run', script, '--', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`],
      {
        cwd: dir,
        // As CI runs it: a missing Redis, PostgreSQL, browser or namespace fails rather than skips.
        env: { ...process.env, REQUIRE_REDIS: '1', REQUIRE_POSTGRES: '1', REQUIRE_BROWSER: '1', REQUIRE_NETNS: '1' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.on('error', reject);
    child.on('exit', () => {
      const seconds = (performance.now() - started) / 1000;
      try {
        const counts = JSON.parse(readFileSync(report, 'utf8')) as {
          numPassedTests: number;
          numFailedTests: number;
          numPendingTests: number;
          numTodoTests: number;
          testResults: Array<{ name: string; startTime: number; endTime: number }>;
        };
        printSlowest(label, dir, counts.testResults);
        resolve({
          label,
          seconds,
          passed: counts.numPassedTests,
          failed: counts.numFailedTests,
          skipped: counts.numPendingTests + counts.numTodoTests,
        });
      } catch (err) {
        reject(new Error(`${label}: no report from vitest (${String(err)})`));
      } finally {
        rmSync(report, { force: true });
      }
    });
  });
}

/** How many of a run's slowest files are printed after it (where a run's time goes). */
const SLOWEST_SHOWN = 15;

/** The run's slowest files, from its JSON report (a file run by both projects is listed twice). */
function printSlowest(label: string, dir: string, files: Array<{ name: string; startTime: number; endTime: number }>) {
  const slowest = files
    .map((file) => ({ seconds: (file.endTime - file.startTime) / 1000, name: file.name.slice(dir.length + 1) }))
    .sort((a, b) => b.seconds - a.seconds);
  const total = slowest.reduce((sum, file) => sum + file.seconds, 0);
  console.log(`${label}: ${slowest.length} file runs, ${Math.round(total)} s in workers; the slowest:`);
  for (const file of slowest.slice(0, SLOWEST_SHOWN))
    console.log(`  ${file.seconds.toFixed(1).padStart(6)} s  ${file.name}`);
}

const minutes = (s: number) => `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;

const baseline = baselineCheckout(baselineRev);
const head = baselineCheckout('HEAD');
const runs: SuiteRun[] = [];
for (let round = 1; round <= rounds; round++) {
  for (const [label, dir, script] of [
    [`baseline ${baselineRev}: npm test`, baseline, 'test'],
    ['HEAD: npm test', head, 'test'],
    ['HEAD: npm run test:all', head, 'test:all'],
  ] as const) {
    const run = await timeScript(`${label} #${round}`, dir, script);
    runs.push(run);
    console.log(
      `${run.label}: ${minutes(run.seconds)}, ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped`,
    );
  }
}

const median = (label: string) => {
  const times = runs
    .filter((r) => r.label.startsWith(label))
    .map((r) => r.seconds)
    .sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
};
const base = median(`baseline ${baselineRev}: npm test`);
console.log(`\nbaseline npm test ${minutes(base)} (median of ${rounds})`);
for (const label of ['HEAD: npm test', 'HEAD: npm run test:all'])
  console.log(`${label}: ${minutes(median(label))}, ${(median(label) / base).toFixed(2)}× the baseline's npm test`);
