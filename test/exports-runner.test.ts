import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../src/config';
import { createDeps } from '../src/create-deps';
import type { AppDeps } from '../src/deps';
import { tablesOf } from '../src/db/database';
import { CommitInDoubt } from '../src/db/errors';
import { startExportRunner } from '../src/modules/exports/jobs';
import { exportFile } from '../src/modules/exports/schemas';
import { objectName } from '../src/modules/uploads/storage';
import { insertWorkshop } from '../src/modules/workshops/repo';
import { until } from './helpers/wait';

/* The export runner on its own, without a server: what it takes, and what it leaves when stopped. */

const opened: Array<{ deps: AppDeps; dir: string }> = [];
afterEach(async () => {
  for (const { deps, dir } of opened.splice(0)) {
    await deps.database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function depsWithExports(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-runner-'));
  const deps = await createDeps(testConfig({ databasePath: join(dir, 'w.db'), filesDir: join(dir, 'files') }));
  opened.push({ deps, dir });
  const { db } = deps.database;
  const rows = await deps.database.transaction(async (tx) => {
    const { users, workshopExports } = tablesOf(tx);
    const [user] = await tx
      .insert(users)
      .values({ email: 'runner@example.test', name: 'Runner', passwordHash: 'x' })
      .returning();
    const workshop = await insertWorkshop(tx, {
      owner: { type: 'user', id: user!.id },
      creatorId: user!.id,
      title: 'Runner',
      language: 'en',
    });
    const made = [];
    for (let index = 0; index < count; index++) {
      const [row] = await tx
        .insert(workshopExports)
        .values({ workshopId: workshop.id, type: 'pdf', requestedBy: user!.id })
        .returning();
      made.push(row!);
    }
    return made;
  });
  const { workshopExports } = tablesOf(db);
  const read = async (id: string) => (await db.select().from(workshopExports).where(eq(workshopExports.id, id)))[0]!;
  return { deps, rows, read };
}

describe('the export runner', () => {
  it('makes pending exports one after another', async () => {
    const { deps, rows, read } = await depsWithExports(2);
    const runner = startExportRunner(deps);
    try {
      await until(
        async () => {
          const current = await Promise.all(rows.map((row) => read(row.id)));
          return current.every((row) => row.state === 'success');
        },
        'both exports made',
        30_000,
      );
    } finally {
      await runner.stop();
    }
  });

  it('keeps the file when the commit recording the export went unanswered: the export may be recorded', async () => {
    const { deps, rows, read } = await depsWithExports(1);
    const real = deps.database.transaction.bind(deps.database);
    let doubted = false;
    vi.spyOn(deps.database, 'transaction').mockImplementation(async (fn) => {
      const result = await real(fn);
      // The commit that made the export a success went through; its answer was lost on the way back.
      if (!doubted && (await read(rows[0]!.id)).state === 'success') {
        doubted = true;
        throw new CommitInDoubt('The database did not answer the commit.');
      }
      return result;
    });
    const runner = startExportRunner(deps);
    try {
      await until(() => doubted, 'the outcome recorded, in doubt', 30_000);
    } finally {
      // Waits for the runner to be done with that outcome.
      await runner.stop();
      vi.restoreAllMocks();
    }
    const file = exportFile(await read(rows[0]!.id));
    expect(file).not.toBeNull();
    expect(await deps.files.get(objectName(file!))).not.toBeNull();
  });

  it('once stopped takes no further export: the next one stays free for another instance', async () => {
    const { deps, rows, read } = await depsWithExports(2);
    const runner = startExportRunner(deps);
    await until(async () => (await read(rows[0]!.id)).leaseUntil !== null, 'the first export taken', 10_000);
    await runner.stop();
    expect(await read(rows[1]!.id)).toMatchObject({ state: 'pending', leaseUntil: null, attempts: 0 });
  });
});
