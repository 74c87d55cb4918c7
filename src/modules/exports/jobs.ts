import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { AppDeps } from '../../deps';
import { nowIso } from '../../db/columns';
import { CommitInDoubt, isUnavailable } from '../../db/errors';
import { FileStoreUnavailable } from '../../files/store';
import type { WorkshopEvent } from '../../domain/events';
import type { ExportJob, ExportJobResult } from './job-messages';
import { takePendingExport } from './repo';
import { newExportFile, type ExportRow } from './schemas';
import { removeBlob } from '../uploads/storage';
import { sweepNextPage, type SweepCursor } from '../uploads/stray-sweep';
import { sweepUnattachedUploads } from '../uploads/unattached';
import { finishExport, pruneOldExports } from './service';

/**
 * A render that takes longer is stopped (its worker ended) and the export marked failed; well
 * within the default lease (`Config.exportLeaseMs`: how long a taken export stays this
 * instance's; past it, a crash, any instance takes it up).
 */
const JOB_TIMEOUT_MS = 2 * 60_000;
/** How often pending exports are looked for besides the wake-ups new exports give. */
const POLL_MS = 30_000;
/**
 * How often a page of stored blobs (uploads, avatars, exports in turn) is swept for strays: on
 * every instance, so less often than the poll; strays only cost storage while they wait.
 */
const SWEEP_MS = 2 * 60_000;
/** How often uploads attached to nothing past their hours are removed (`sweepUnattachedUploads`), on every instance. */
const UNATTACHED_SWEEP_MS = 10 * 60_000;
/** An export whose renders keep dying with the process is given up after this many takes. */
const MAX_ATTEMPTS = 3;

export interface ExportRunner {
  /** Looks for pending exports now. */
  wake(): void;
  /** Stops taking exports, lets the one being made finish, and ends the worker thread. */
  stop(): Promise<void>;
}

/**
 * Makes pending exports in the background: one at a time, in a worker thread that reads the
 * database on its own connection and writes the file, so the event loop only records the
 * outcome. Exports are taken under a lease, so two instances on one database never make the same
 * one and an export whose instance died is made by another after the lease.
 */
export function startExportRunner(deps: AppDeps): ExportRunner {
  let worker: ExportWorker | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let tidying: Promise<void> | null = null;
  let lastSweep = 0;
  let lastUnattachedSweep = 0;
  /** Where the next sweep for stray blobs goes on. */
  let sweepCursor: SweepCursor = { container: 0, after: undefined };
  /** Wake-ups at the end of the leases of exports left to be made again. */
  const retries = new Set<NodeJS.Timeout>();

  const drain = async () => {
    do {
      again = false;
      for (let row = stopped ? null : await take(deps); row; row = stopped ? null : await take(deps)) {
        // A thread that ended (crashed, even between jobs, or stopped for overrunning) is replaced.
        if (!worker?.alive) worker = new ExportWorker();
        const job: ExportJob = {
          id: row.id,
          workshopId: row.workshopId,
          type: row.type,
          databasePath: deps.config.databasePath,
          databaseUrl: deps.config.databaseUrl,
          files: { filesDir: deps.config.filesDir, filesUrl: deps.config.filesUrl, s3: deps.config.s3 },
          file: newExportFile(row.workshopId),
        };
        const result = await worker.run(job);
        if ((await record(deps, row, job, result)) === 'again') retryAfterLease();
      }
    } while (again && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((err) => console.error('[exports] runner failed', err))
      .finally(() => {
        running = null;
        // A wake-up that came while the last look found nothing is not lost.
        if (again) wake();
      });
  };

  // Taken again once its lease has run out, here or by another instance, rather than at a later poll.
  const retryAfterLease = () => {
    const timer = setTimeout(() => {
      retries.delete(timer);
      wake();
    }, deps.config.exportLeaseMs + 100);
    timer.unref();
    retries.add(timer);
  };

  const onEvent = (event: WorkshopEvent) => {
    if (event.action === 'addExport') wake();
  };
  deps.bus.on('workshop', onEvent);
  const tidy = async () => {
    try {
      await pruneOldExports(deps);
      if (Date.now() - lastUnattachedSweep >= UNATTACHED_SWEEP_MS) {
        lastUnattachedSweep = Date.now();
        await sweepUnattachedUploads(deps);
      }
      if (Date.now() - lastSweep >= SWEEP_MS) {
        lastSweep = Date.now();
        sweepCursor = await sweepNextPage(deps, sweepCursor);
      }
    } catch (err) {
      // A busy database or a failure here leaves old exports for the next poll.
      if (!isUnavailable(err) && !(err instanceof FileStoreUnavailable))
        console.error('[exports] removing old exports, unattached uploads or stray blobs failed', err);
    }
  };
  const poll = setInterval(() => {
    wake();
    // One tidying at a time: a slow one is not overtaken by the next poll.
    tidying ??= tidy().finally(() => (tidying = null));
  }, POLL_MS);
  poll.unref();
  wake();

  return {
    wake,
    async stop() {
      stopped = true;
      clearInterval(poll);
      for (const timer of retries) clearTimeout(timer);
      deps.bus.off('workshop', onEvent);
      await running;
      await tidying;
      await worker?.end();
      worker = null;
    },
  };
}

/** Takes the oldest pending export nobody holds; null when there is none (or the lock is busy). */
async function take(deps: AppDeps): Promise<ExportRow | null> {
  const now = nowIso();
  try {
    return await deps.database.transaction((tx) => takePendingExport(tx, now, deps.config.exportLeaseMs));
  } catch (err) {
    // Another instance holds the write lock: the next wake-up or poll tries again.
    if (isUnavailable(err)) return null;
    throw err;
  }
}

/**
 * Records the worker's outcome; 'again' when the export is left pending for its lease to run out:
 * its render died with the thread, or failed only because the database or the storage was away,
 * and it has been tried fewer than `MAX_ATTEMPTS` times.
 */
async function record(deps: AppDeps, row: ExportRow, job: ExportJob, result: WorkerOutcome): Promise<'done' | 'again'> {
  // Whatever a failed or dead render left under the job's key is no export's file.
  if (!result.ok) await removeBlob(deps.files, job.file);
  if (!result.ok && (result.crashed || result.retry) && row.attempts < MAX_ATTEMPTS) return 'again';
  try {
    await finishExport(deps, row, job.file, result);
  } catch (err) {
    // A commit in doubt may have recorded the file: the stray sweep removes it if no row came of it.
    if (!(err instanceof CommitInDoubt)) await removeBlob(deps.files, job.file);
    console.error(`[exports] recording export ${row.id} failed; it is tried again after its lease`, err);
    return 'again';
  }
  return 'done';
}

/** The worker's answer, or the runner's own when the thread died (`crashed`) or overran. */
type WorkerOutcome = ExportJobResult & { crashed?: boolean };

/** One worker thread, started on first use and kept for the next exports. */
class ExportWorker {
  private readonly thread: Worker;
  /** False once the thread has ended (crashed, or stopped for overrunning): start another. */
  alive = true;
  private pending: { id: string; done: (result: WorkerOutcome) => void } | null = null;

  constructor() {
    this.thread = startThread();
    this.thread.unref();
    this.thread.on('message', (result: ExportJobResult) => {
      if (this.pending?.id === result.id) this.settle(result);
    });
    this.thread.on('error', (err) => {
      // 'error' comes before 'exit': no job may be handed to the dying thread in between.
      this.alive = false;
      console.error('[exports] worker failed', err);
      this.settle({
        id: this.pending?.id ?? '',
        ok: false,
        message: 'The export stopped unexpectedly.',
        crashed: true,
      });
    });
    this.thread.on('exit', () => {
      this.alive = false;
      this.settle({
        id: this.pending?.id ?? '',
        ok: false,
        message: 'The export stopped unexpectedly.',
        crashed: true,
      });
    });
  }

  run(job: ExportJob): Promise<WorkerOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.alive = false;
        this.settle({
          id: job.id,
          ok: false,
          message: `The export took longer than ${JOB_TIMEOUT_MS / 1000} s and was stopped.`,
        });
        void this.thread.terminate();
      }, JOB_TIMEOUT_MS);
      this.pending = {
        id: job.id,
        done: (result) => {
          clearTimeout(timer);
          resolve(result);
        },
      };
      this.thread.postMessage(job);
    });
  }

  async end(): Promise<void> {
    await this.thread.terminate();
  }

  private settle(result: WorkerOutcome): void {
    const pending = this.pending;
    this.pending = null;
    pending?.done(result);
  }
}

/** The built service starts `export-worker.js` beside its bundle; sources go through tsx. */
function startThread(): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) {
    const built = new URL('./export-worker.js', here);
    if (existsSync(built)) return new Worker(built);
  }
  return new Worker(new URL('./worker-boot.mjs', import.meta.url), {
    workerData: { entry: new URL('./worker.ts', import.meta.url).href },
  });
}
