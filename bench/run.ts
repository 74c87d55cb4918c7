/**
 * `npm run bench -- <name> [--flag=value …]` runs bench/<name>.ts with the flags; without a name,
 * every bench in turn but `test-suite`.
 * Each bench prints its figures and their ratios to a baseline measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'server.ts'].includes(f) && !f.startsWith('_'))
  .map((f) => f.replace(/\.ts$/, ''));
const requested = process.argv.slice(2).filter((a) => !a.startsWith('-'));
// Flags (`--store=postgres`) go on to each bench.
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
// The test suite's own timing takes most of an hour of the machine: it runs when named.
const onRequest = ['test-suite'];
const names = requested.length > 0 ? requested : available.filter((name) => !onRequest.includes(name));

for (const name of names) {
  if (!available.includes(name)) {
    console.error(`unknown bench "${name}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== bench: ${name} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, `${name}.ts`), ...flags], {
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
