import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../src/config';
import { createDeps } from '../src/create-deps';
import type { AppDeps } from '../src/deps';
import { users, workshopExports } from '../src/db/schema/index';
import { startExportRunner } from '../src/modules/exports/jobs';
import { insertWorkshop } from '../src/modules/workshops/repo';
import { until } from './helpers/wait';

/* The export runner on its own, without a server: what it takes, and what it leaves when stopped. */

const opened: Array<{ deps: AppDeps; dir: string }> = [];
afterEach(() => {
  for (const { deps, dir } of opened.splice(0)) {
    deps.database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function depsWithExports(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-runner-'));
  const deps = createDeps(testConfig({ databasePath: join(dir, 'w.db'), filesDir: join(dir, 'files') }));
  opened.push({ deps, dir });
  const { db } = deps.database;
  const user = db.insert(users).values({ email: 'runner@example.test', name: 'Runner', passwordHash: 'x' }).returning().get();
  const workshop = insertWorkshop(db, { owner: { type: 'user', id: user.id }, creatorId: user.id, title: 'Runner' });
  const rows = Array.from({ length: count }, () => db.insert(workshopExports).values({ workshopId: workshop.id, type: 'pdf', requestedBy: user.id }).returning().get());
  const read = (id: string) => db.select().from(workshopExports).where(eq(workshopExports.id, id)).get()!;
  return { deps, rows, read };
}

describe('the export runner', () => {
  it('makes pending exports one after another', async () => {
    const { deps, rows, read } = depsWithExports(2);
    const runner = startExportRunner(deps);
    try {
      await until(() => rows.every((row) => read(row.id).state === 'success'), 'both exports made', 30_000);
    } finally {
      await runner.stop();
    }
  });

  it('once stopped takes no further export: the next one stays free for another instance', async () => {
    const { deps, rows, read } = depsWithExports(2);
    const runner = startExportRunner(deps);
    await until(() => read(rows[0]!.id).leaseUntil !== null, 'the first export taken', 10_000);
    await runner.stop();
    expect(read(rows[1]!.id)).toMatchObject({ state: 'pending', leaseUntil: null, attempts: 0 });
  });
});
