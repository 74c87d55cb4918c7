import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildServer } from '../../scripts/build-server.mjs';

/*
 * The server built once for the run, as production runs it (`node dist/main.js`), for the tests
 * that start it as a process of its own (test/helpers/processes.ts `serverCommand`): a process
 * running the bundle listens in about a second, one running the sources through tsx in two to
 * four, and the suite starts dozens. `npm start` through tsx keeps its own test
 * (test/production.test.ts).
 */

declare module 'vitest' {
  interface ProvidedContext {
    serverBundle: string;
  }
}

export default async function buildServerBundle(project: TestProject): Promise<() => void> {
  // Inside the package: the built server finds the migrations and catalogs from its own place.
  mkdirSync('.vitest', { recursive: true });
  const dir = mkdtempSync(join('.vitest', `server-${project.name}-`));
  try {
    await buildServer(dir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  project.provide('serverBundle', join(process.cwd(), dir, 'main.js'));
  return () => rmSync(dir, { recursive: true, force: true });
}
