import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule, TestRunEndReason } from 'vitest/node';

/*
 * Writes what each test file cost in the last run to `.vitest/report.json` (gitignored), beside
 * the default reporter: per file and project, the seconds it held a worker (start-up, import and
 * collection, tests and hooks), so `npm run test:slowest` can say where a run's time went.
 * vitest's own JSON report names no project and leaves out imports and `beforeAll` hooks.
 */

/** One test file in one project. Seconds. */
export interface FileTime {
  file: string;
  project: string;
  state: string;
  /** Start-up of the worker's harness, import of the file and its imports, tests and hooks. */
  seconds: number;
  /** Of which importing the file (and everything it imports) and collecting its tests. */
  importSeconds: number;
  tests: { passed: number; failed: number; skipped: number };
}

export interface Report {
  /** The arguments vitest was given (a partial run reports only its files). */
  argv: string[];
  startedAt: string;
  wallSeconds: number;
  reason: TestRunEndReason;
  files: FileTime[];
}

export const REPORT_PATH = '.vitest/report.json';

const seconds = (ms: number) => Math.round(ms) / 1000;

export default class FileTimes implements Reporter {
  private started = Date.now();

  onTestRunStart() {
    this.started = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason) {
    const files = modules.map((module): FileTime => {
      const d = module.diagnostic();
      const tests = { passed: 0, failed: 0, skipped: 0 };
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') tests.passed++;
        else if (state === 'failed') tests.failed++;
        else tests.skipped++;
      }
      return {
        file: relative(process.cwd(), module.moduleId),
        project: module.project.name,
        state: module.state(),
        seconds: seconds(
          d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration,
        ),
        importSeconds: seconds(d.collectDuration),
        tests,
      };
    });
    const report: Report = {
      argv: process.argv.slice(2),
      startedAt: new Date(this.started).toISOString(),
      wallSeconds: seconds(Date.now() - this.started),
      reason,
      files,
    };
    mkdirSync(dirname(REPORT_PATH), { recursive: true });
    writeFileSync(REPORT_PATH, `${JSON.stringify(report, null, 1)}\n`);
  }
}
