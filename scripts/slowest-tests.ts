import { existsSync, readFileSync } from 'node:fs';
import { REPORT_PATH, type Report } from '../test/setup/file-times';

/*
 * `npm run test:slowest [N]`: the N (20) test files that held a worker longest in the last run,
 * from the report `npm test` leaves in .vitest/report.json (test/setup/file-times.ts).
 */

if (!existsSync(REPORT_PATH)) {
  console.error(`No ${REPORT_PATH}: run npm test (or npm run test:all) first.`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(REPORT_PATH, 'utf8')) as Report;
const count = Number(process.argv[2] ?? 20);
const files = [...report.files].sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((sum, file) => sum + file.seconds, 0);
const imports = files.reduce((sum, file) => sum + file.importSeconds, 0);
const fixed = (value: number) => value.toFixed(1).padStart(6);

console.log(
  `vitest ${report.argv.join(' ')} at ${report.startedAt}: ${files.length} files in ${report.wallSeconds.toFixed(0)} s` +
    ` (${total.toFixed(0)} s in workers, ${imports.toFixed(0)} s of it importing)${report.reason === 'passed' ? '' : `, ${report.reason}`}`,
);
console.log(`${'total s'.padStart(7)} ${'import'.padStart(6)}  tests  project   file`);
for (const file of files.slice(0, count)) {
  const tests = file.tests.passed + file.tests.failed;
  console.log(
    `${fixed(file.seconds)}  ${fixed(file.importSeconds)} ${String(tests).padStart(6)}  ${file.project.padEnd(8)}  ${file.file}`,
  );
}
