import { eq, sql } from 'drizzle-orm';
import { tablesOf, type Database, type Db, type Schema } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { isRetryable } from '../../db/errors';
import { named, preparedPerDb, rowInserter, type Insertable } from '../../db/prepared';
import { jsonRows, queryRows } from '../../db/sql';
import type { DomainEventBus, NotificationEvent, PublishTicket } from './bus';
import { cardUserIdOf, type ChangeInput, type WorkshopEvent } from './changes';

/** Collects what a write transaction changed; published only once the transaction commits. */
export interface ChangeRecorder {
  /**
   * Appends an event to the workshop's log and queues its broadcast. Events are numbered and
   * stored when the write's body is done, in the order recorded, in its transaction. The payload's
   * type follows the action (`changes.ts`).
   */
  record(input: ChangeInput): void;
  /** Creates a notification for each user (stored with the events) and queues its delivery. */
  notify(userIds: readonly string[], type: string, data: Record<string, unknown>): void;
  /** Runs after commit; skipped when the transaction rolls back. */
  afterCommit(fn: () => void): void;
  /**
   * Runs once the transaction has rolled back (say, to drop a Yjs document whose memory took a
   * change that was never stored); skipped when it commits.
   */
  onRollback(fn: () => void): void;
}

export type { ChangeInput } from './changes';

export interface WriteDeps {
  database: Database;
  bus: DomainEventBus;
}

/** These run on every write: prepared once per connection. */
const statements = preparedPerDb((db: Db) => {
  const { workshops } = tablesOf(db);
  const p = sql.placeholder;
  return {
    // Moves the workshop's last seq past the events being stored; the row is locked from here on.
    number: named(
      db
        .update(workshops)
        .set({ lastEventSeq: sql`${workshops.lastEventSeq} + ${p('count')}` })
        .where(eq(workshops.id, p('workshopId')))
        .returning({ last: workshops.lastEventSeq }),
      'events_number',
    ),
  };
});

type EventRow = Pick<
  Schema['events']['$inferSelect'],
  'id' | 'workshopId' | 'seq' | 'action' | 'userId' | 'cardUserId' | 'change' | 'createdAt'
>;

const insertEvents = rowInserter(
  'events_insert',
  ['id', 'workshopId', 'seq', 'action', 'userId', 'cardUserId', 'change', 'createdAt'],
  (db, rows: Array<Insertable<EventRow>>) => db.insert(tablesOf(db).events).values(rows),
);

type NotificationRow = Schema['notifications']['$inferSelect'];

const insertNotifications = rowInserter(
  'notifications_insert',
  ['id', 'userId', 'type', 'data', 'read', 'createdAt', 'updatedAt'],
  (db, rows: Array<Insertable<NotificationRow>>) => db.insert(tablesOf(db).notifications).values(rows),
);

/** What one write recorded: stored at the end of its body, published once its transaction commits. */
class Recorded {
  readonly inputs: ChangeInput[] = [];
  readonly events: WorkshopEvent[] = [];
  readonly notifications: NotificationEvent[] = [];
  readonly callbacks: Array<() => void> = [];
  readonly rollbacks: Array<() => void> = [];
  private readonly tickets: Array<{ workshopId: string; ticket: PublishTicket }> = [];

  readonly recorder: ChangeRecorder = {
    record: (input) => {
      this.inputs.push(input);
    },
    notify: (userIds, type, data) => {
      const now = nowIso();
      for (const userId of userIds) {
        this.notifications.push({
          userId,
          notification: { id: newId(), type, data, read: false, created_at: now, updated_at: now },
        });
      }
    },
    afterCommit: (callback) => {
      this.callbacks.push(callback);
    },
    onRollback: (callback) => {
      this.rollbacks.push(callback);
    },
  };

  /** Reserves this write's place in `workshopId`'s publishing order, at its first event there. */
  reserve(bus: DomainEventBus, workshopId: string, seq: number): void {
    this.tickets.push({ workshopId, ticket: bus.reserve(workshopId, seq) });
  }

  rolledBack(): void {
    for (const { ticket } of this.tickets.splice(0)) ticket.drop();
    for (const callback of this.rollbacks) guarded(callback, 'rollback');
  }

  /** The write has committed: a failing listener must not turn it into an error for the caller. */
  publish(bus: DomainEventBus): void {
    const unnumbered = this.events.filter((event) => event.seq === 0);
    for (const { workshopId, ticket } of this.tickets)
      ticket.publish(this.events.filter((event) => event.workshopId === workshopId && event.seq > 0));
    for (const event of unnumbered) guarded(() => bus.emit('workshop', event));
    for (const notification of this.notifications) guarded(() => bus.emit('notification', notification));
    for (const callback of this.callbacks) guarded(callback);
  }
}

/**
 * Moves each workshop's last seq past its events; answers the new last seq by workshop (a removed
 * workshop: none). One statement however many workshops the write recorded events on.
 */
async function numberEvents(
  tx: Db,
  byWorkshop: ReadonlyMap<string, readonly ChangeInput[]>,
): Promise<Map<string, number>> {
  // A write that recorded nothing (a refused vote, a change to the same value) costs no statement.
  if (byWorkshop.size === 0) return new Map();
  if (byWorkshop.size === 1) {
    const [workshopId, inputs] = [...byWorkshop][0]!;
    const [row] = await statements(tx).number.execute({ workshopId, count: inputs.length });
    return new Map(row ? [[workshopId, row.last]] : []);
  }
  const counts = JSON.stringify([...byWorkshop].map(([workshopId, inputs]) => [workshopId, inputs.length]));
  const rows = await queryRows<{ id: string; last: number }>(
    tx,
    sql`UPDATE workshops SET last_event_seq = workshops.last_event_seq + added.count
      FROM ${jsonRows(tx, counts, [
        { name: 'id', type: 'text' },
        { name: 'count', type: 'integer' },
      ])} AS added
      WHERE workshops.id = added.id RETURNING workshops.id AS id, workshops.last_event_seq AS last`,
  );
  return new Map(rows.map((row) => [row.id, Number(row.last)]));
}

/**
 * Numbers the events a write recorded, per workshop in the order recorded (`numberEvents`), stores
 * them and the notifications in `tx`, and reserves the write's place in the bus's publishing order.
 * A removed workshop has no row left to number its last event: that one is broadcast with `seq` 0
 * and not stored.
 */
async function storeRecorded(tx: Db, bus: DomainEventBus, write: Recorded): Promise<void> {
  const byWorkshop = new Map<string, ChangeInput[]>();
  for (const input of write.inputs) {
    const list = byWorkshop.get(input.workshopId);
    if (list) list.push(input);
    else byWorkshop.set(input.workshopId, [input]);
  }
  const numbered = new Map<ChangeInput, WorkshopEvent>();
  const lastSeqs = await numberEvents(tx, byWorkshop);
  const createdAt = nowIso();
  const rows: WorkshopEvent[] = [];
  for (const [workshopId, inputs] of byWorkshop) {
    const last = lastSeqs.get(workshopId);
    const first = last === undefined ? 0 : last - inputs.length + 1;
    inputs.forEach((input, index) => {
      const event = {
        id: newId(),
        seq: last === undefined ? 0 : first + index,
        createdAt,
        ...input,
        cardUserId: cardUserIdOf(input),
      } as WorkshopEvent;
      numbered.set(input, event);
      if (last !== undefined) rows.push(event);
    });
    if (last !== undefined) write.reserve(bus, workshopId, first);
  }
  await insertEvents(
    tx,
    rows.map(({ id, workshopId, seq, action, userId, cardUserId, change }) => ({
      id,
      workshopId,
      seq,
      action,
      userId,
      cardUserId,
      change,
      createdAt,
    })),
  );
  write.events.push(...write.inputs.map((input) => numbered.get(input)!));
  await insertNotifications(
    tx,
    write.notifications.map(({ userId, notification: n }) => ({
      id: n.id,
      userId,
      type: n.type,
      data: n.data,
      read: false,
      createdAt: n.created_at,
      updatedAt: n.updated_at,
    })),
  );
}

/** How often a write two transactions collided on (a deadlock, a serialization failure) runs again. */
const RETRIES = 3;

/**
 * Runs `fn` in one write transaction, then publishes what it recorded. Nothing is published when
 * `fn` throws. A write the database failed because it met another (PostgreSQL's deadlocks) runs
 * again whole, a few times. `fn` reaches the database only through `tx`.
 */
export async function write<T>(deps: WriteDeps, fn: (tx: Db, changes: ChangeRecorder) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const recorded = new Recorded();
    let result: T;
    try {
      result = await deps.database.transaction(async (tx) => {
        const value = await fn(tx, recorded.recorder);
        await storeRecorded(tx, deps.bus, recorded);
        return value;
      });
    } catch (err) {
      recorded.rolledBack();
      if (attempt <= RETRIES && isRetryable(err)) continue;
      throw err;
    }
    recorded.publish(deps.bus);
    return result;
  }
}

/**
 * `write` for a change to one workshop: its row is locked as the transaction's first statement
 * (`Database.lockWorkshop`), so every check-then-act rule of the workshop (vote budgets, positions,
 * card numbers, `seq`) holds across instances.
 */
export function writeWorkshop<T>(
  deps: WriteDeps,
  workshopId: string,
  fn: (tx: Db, changes: ChangeRecorder) => Promise<T>,
): Promise<T> {
  return write(deps, async (tx, changes) => {
    await deps.database.lockWorkshop(tx, workshopId);
    return fn(tx, changes);
  });
}

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

/** The queues of batched writes, per store and kind. */
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
  let queue = byKind.get(kind);
  if (!queue) byKind.set(kind, (queue = { items: [], scheduled: false, writing: false, apart: new Map() }));
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

function guarded(fn: () => void, after = 'commit') {
  try {
    fn();
  } catch (err) {
    console.error(`[events] listener failed after ${after}`, err);
  }
}

/** `{field: [old, new]}` for the fields whose value changed; deep-compares JSON values. */
export function diffFields<T extends Record<string, unknown>>(
  before: T,
  after: T,
  fields: readonly (keyof T & string)[],
) {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = [before[field], after[field]];
  }
  return changes;
}
