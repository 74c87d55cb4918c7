import type { Database, Db } from './database';
import type { ChangeRecorder } from '../domain/recorder';
import { write, writeWorkshop, type WriteDeps } from './write';

interface Pending {
  workshopId: string;
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  /** When a batch first found its workshop held by another transaction. */
  heldSince?: number;
}

type BatchRun = (
  tx: Db,
  changes: ChangeRecorder,
  items: ReadonlyArray<BatchItem<unknown>>,
) => Promise<Array<BatchOutcome<unknown>>>;

/** A batched request: which workshop it changes, and what it asks. */
export interface BatchItem<I> {
  workshopId: string;
  input: I;
}

/** Requests waiting for their batch, and whether a batch of them is being written. */
interface BatchQueue {
  items: Pending[];
  scheduled: boolean;
  writing: boolean;
  /**
   * Requests on workshops another transaction held when their batch was written, by workshop:
   * written apart, one transaction per workshop at a time (`writeApart`).
   */
  apart: Map<string, Pending[]>;
}

/** The queues of batched writes, per store and kind (and API token: few, an organization's or a person's). */
const queues = new WeakMap<Database, Map<string, BatchQueue>>();

/** The most requests one batch's transaction takes; more wait for the next. */
const BATCH_LIMIT = 500;

/**
 * A request whose workshop a batch found held goes into the next batch, and the next, for this
 * long: another instance's batch holds its workshops for a few milliseconds. Held longer (a big
 * import), it is written apart. Without this, two instances batching votes on the same workshops
 * kept finding them held by each other and fell back to one transaction per workshop for good.
 */
const HELD_BATCHED_MS = 100;
/** A batch that found every workshop held waits this long before the next, rather than asking again at once. */
const ALL_HELD_PAUSE_MS = 2;

/**
 * What a batch's writer answers for each request, in order: its result, or the error refusing it
 * (a limit reached). A refused request must have written nothing.
 */
export type BatchOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

/**
 * `writeWorkshop` for the busiest small writes (votes): requests of one `kind` that arrive together,
 * on any number of workshops, are written by `run` in one transaction that locks their workshops
 * first (in one statement), with set-based reads: a batch costs a handful of statements however
 * many requests and workshops it holds. One batch of a kind is written at a time, and what arrives
 * meanwhile forms the next (group commit). Each request is answered, and its events published,
 * once the transaction has committed; if it fails, every request of the batch fails with it.
 * A workshop another transaction holds does not hold up the batch: its requests go into the next
 * batches (another instance's batch is over within milliseconds), and once held for longer (a
 * long import) are written apart, waiting for it as `writeWorkshop` would.
 */
export function writeBatched<I, O>(
  deps: WriteDeps,
  kind: string,
  workshopId: string,
  input: I,
  run: (tx: Db, changes: ChangeRecorder, items: ReadonlyArray<BatchItem<I>>) => Promise<Array<BatchOutcome<O>>>,
): Promise<O> {
  let byKind = queues.get(deps.database);
  if (!byKind) queues.set(deps.database, (byKind = new Map<string, BatchQueue>()));
  // A batch's events name one API token, or none (`WriteDeps.apiTokenId`): a token's requests
  // are batched among themselves, apart from sessions' requests and other tokens'.
  const queueKey = deps.apiTokenId === undefined ? kind : `${kind}\u0000${deps.apiTokenId}`;
  let queue = byKind.get(queueKey);
  if (!queue) byKind.set(queueKey, (queue = { items: [], scheduled: false, writing: false, apart: new Map() }));
  const waiting = queue;
  const answer = new Promise<O>((resolve, reject) =>
    waiting.items.push({ workshopId, input, resolve: resolve as Pending['resolve'], reject }),
  );
  if (!waiting.scheduled && !waiting.writing) {
    waiting.scheduled = true;
    // What arrives in the same turn of the event loop joins this batch.
    setImmediate(() => void drain(deps, waiting, run as BatchRun));
  }
  return answer;
}

async function drain(deps: WriteDeps, queue: BatchQueue, run: BatchRun): Promise<void> {
  queue.scheduled = false;
  queue.writing = true;
  while (queue.items.length > 0) {
    const lockedAny = await writeBatch(deps, queue, queue.items.splice(0, BATCH_LIMIT), run);
    if (!lockedAny) await new Promise((resolve) => setTimeout(resolve, ALL_HELD_PAUSE_MS));
  }
  queue.writing = false;
}

/**
 * Writes a batch under the locks of its workshops that no other transaction holds (taken without
 * waiting); the requests on the others go into the next batch for a while, then are written apart
 * (`writeApart`), so that one workshop held for long fails none of the batch's other requests, nor
 * keeps them waiting. Resolves with whether the batch had any of its workshops.
 */
async function writeBatch(deps: WriteDeps, queue: BatchQueue, batch: Pending[], run: BatchRun): Promise<boolean> {
  let locked: Pending[] = [];
  let held: Pending[] = [];
  let outcomes: Array<BatchOutcome<unknown>>;
  try {
    outcomes = await write(deps, async (tx, changes) => {
      const free = await deps.database.lockFreeWorkshops(tx, [...new Set(batch.map((item) => item.workshopId))]);
      locked = batch.filter((item) => free.has(item.workshopId));
      held = batch.filter((item) => !free.has(item.workshopId));
      return locked.length === 0
        ? []
        : run(
            tx,
            changes,
            locked.map(({ workshopId, input }) => ({ workshopId, input })),
          );
    });
  } catch (err) {
    // The shared transaction failed (the commit failed, the database is away): none of it stands.
    for (const item of batch) item.reject(err);
    return true;
  }
  answerEach(locked, outcomes);
  const now = Date.now();
  const again: Pending[] = [];
  for (const item of held) {
    item.heldSince ??= now;
    // A workshop already written apart stays so until its queue there is empty.
    if (now - item.heldSince < HELD_BATCHED_MS && !queue.apart.has(item.workshopId)) again.push(item);
    else writeApart(deps, queue, item, run);
  }
  // Ahead of what arrived meanwhile, in their order.
  queue.items.unshift(...again);
  return locked.length > 0;
}

/**
 * Writes a request whose workshop was held when its batch was written: with the other requests on
 * that workshop set apart meanwhile, in a `writeWorkshop` transaction that waits for the lock as
 * long as any write does (past it: 503). One such transaction per workshop at a time, so a held
 * workshop takes one pooled connection, not one per batch.
 */
function writeApart(deps: WriteDeps, queue: BatchQueue, item: Pending, run: BatchRun): void {
  const waiting = queue.apart.get(item.workshopId);
  if (waiting) {
    waiting.push(item);
    return;
  }
  const { workshopId } = item;
  const pending = [item];
  queue.apart.set(workshopId, pending);
  void (async () => {
    while (pending.length > 0) {
      const taken = pending.splice(0);
      try {
        answerEach(
          taken,
          await writeWorkshop(deps, workshopId, (tx, changes) =>
            run(
              tx,
              changes,
              taken.map(({ input }) => ({ workshopId, input })),
            ),
          ),
        );
      } catch (err) {
        // The lock was not had in time (503), or the transaction failed: none of it stands.
        for (const request of taken) request.reject(err);
      }
    }
    queue.apart.delete(workshopId);
  })();
}

/** Answers the requests a transaction wrote, once it committed, each with its outcome (in order). */
function answerEach(items: readonly Pending[], outcomes: ReadonlyArray<BatchOutcome<unknown>>): void {
  items.forEach((item, index) => {
    const outcome = outcomes[index]!;
    if (outcome.ok) item.resolve(outcome.value);
    else item.reject(outcome.error);
  });
}
