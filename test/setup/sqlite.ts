import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openSqlite } from '../../src/db/sqlite';

/*
 * One SQLite database migrated for the run, which each test server's file is copied from, as the
 * PostgreSQL side copies its template database: the server's own migrations then find nothing left
 * to do (a few milliseconds instead of some 30 per server).
 */

declare module 'vitest' {
  interface ProvidedContext {
    sqliteTemplate: string;
  }
}

export default async function makeSqliteTemplate(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-sqlite-template-'));
  const template = join(dir, 'template.db');
  try {
    await openSqlite(template, { checked: false }).close();
    // Closing the last connection folds the write-ahead log into the file: the file is all of it.
    if (existsSync(`${template}-wal`)) throw new Error(`${template}-wal is still there after closing the template`);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  project.provide('sqliteTemplate', template);
  return () => rmSync(dir, { recursive: true, force: true });
}
