// Prints vitest's JSON results as the plain closing line CI reads: "N passed, N failed[, N skipped]".
import { readFileSync } from 'node:fs';

const file = process.argv[2];
let results;
try {
  results = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.log(`could not read test results (${err.message})`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = results.numPassedTests ?? 0;
const failed = (results.numFailedTests ?? 0);
const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
// A file that fails to load counts no test but must still fail the run.
const brokenFiles = (results.testResults ?? []).filter((f) => f.status === 'failed' && (f.assertionResults ?? []).length === 0).length;
// Errors outside any test (an unhandled rejection) fail the run though every test passed: count one.
const stray = results.success === false && failed + brokenFiles === 0 ? 1 : 0;
if (stray) console.log('errors outside the tests (unhandled rejections or exceptions): see the log above');
console.log(`${passed} passed, ${failed + brokenFiles + stray} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed + brokenFiles + stray > 0 || passed === 0 ? 1 : 0);
