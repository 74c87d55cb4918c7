// Prints vitest's JSON results as the plain closing line CI reads: "N passed, N failed[, N skipped]".
// Given several result files (one run per Node version), prints a line per run, then the total.
import { readFileSync } from 'node:fs';

function count(file, label) {
  let results;
  try {
    results = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.log(`could not read test results ${file} (${err.message})`);
    return { passed: 0, failed: 1, skipped: 0 };
  }
  const passed = results.numPassedTests ?? 0;
  const failed = results.numFailedTests ?? 0;
  const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
  // A file that fails to load counts no test but must still fail the run.
  const brokenFiles = (results.testResults ?? []).filter(
    (f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0,
  ).length;
  // Errors outside any test (an unhandled rejection) fail the run though every test passed: count one.
  const stray = results.success === false && failed + brokenFiles === 0 ? 1 : 0;
  if (stray) console.log(`${file}: errors outside the tests (unhandled rejections or exceptions): see the log above`);
  failures(results, label);
  // No test at all is a failed run too (a crash before any result).
  return { passed, failed: failed + brokenFiles + stray + (passed === 0 ? 1 : 0), skipped };
}

// Names each failed test with the first line of its error, so the end of a long log says what broke.
function failures(results, label) {
  for (const testFile of results.testResults ?? []) {
    const name = String(testFile.name ?? '').replace(/^.*?\/test\//, 'test/');
    const failed = (testFile.assertionResults ?? []).filter((test) => test.status === 'failed');
    if (testFile.status === 'failed' && failed.length === 0)
      console.log(`FAILED (${label}) ${name}: ${firstLine(testFile.message)}`);
    for (const test of failed)
      console.log(
        `FAILED (${label}) ${name} > ${test.fullName ?? test.title}: ${firstLine((test.failureMessages ?? [])[0])}`,
      );
  }
}

const firstLine = (message) =>
  String(message ?? '')
    .split('\n')
    .find((text) => text.trim() !== '')
    ?.trim()
    .slice(0, 300) ?? '';

const line = ({ passed, failed, skipped }) =>
  `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
// Arguments: result files, each optionally named (`label=file`).
const named = process.argv
  .slice(2)
  .map((arg) =>
    /^[\w .-]+=/.test(arg) ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, arg],
  );
const runs = named.map(([label, file]) => count(file, label));
if (runs.length > 1) runs.forEach((run, index) => console.log(`${named[index][0]}: ${line(run)}`));
const total = runs.reduce(
  (sum, run) => ({
    passed: sum.passed + run.passed,
    failed: sum.failed + run.failed,
    skipped: sum.skipped + run.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
console.log(line(total));
process.exit(total.failed > 0 ? 1 : 0);
