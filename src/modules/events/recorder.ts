import { eq, sql } from 'drizzle-orm';
import { tablesOf, type Database, type Db } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { isRetryable } from '../../db/errors';
import { named, preparedPerDb, preparedPerSize, rowPlaceholders, rowValues, ROWS_PER_INSERT } from '../../db/prepared';
import { jsonRows, queryRows } from '../../db/sql';
import type { DomainEventBus, NotificationEvent, PublishTicket } from './bus';
import type { ChangeInput, WorkshopEvent } from './changes';

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
  const { workshops, notifications } = tablesOf(db);
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
    insertNotification: named(
      db.insert(notifications).values({
        id: p('id'),
        userId: p('userId'),
        type: p('type'),
        data: p('data'),
        read: false,
        createdAt: p('now'),
        updatedAt: p('now'),
      }),
      'notifications_insert',
    ),
  };
});

/** Inserts of up to this many events are prepared, one statement per count (a batch of votes logs one each). */
const PREPARED_EVENTS = 64;

const eventInserts = preparedPerSize(PREPARED_EVENTS, (db: Db, size: number) => {
  const { events } = tablesOf(db);
  return named(db.insert(events).values(rowPlaceholders(size, ['id', 'workshopId', 'seq', 'action', 'userId', 'change', 'createdAt'] as const)), `events_insert_${size}`);
});

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
        this.notifications.push({ userId, notification: { id: newId(), type, data, read: false, created_at: now, updated_at: now } });
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
    for (const { workshopId, ticket } of this.tickets) ticket.publish(this.events.filter((event) => event.workshopId === workshopId && event.seq > 0));
    for (const event of unnumbered) guarded(() => bus.emit('workshop', event));
    for (const notification of this.notifications) guarded(() => bus.emit('notification', notification));
    for (const callback of this.callbacks) guarded(callback);
  }
}

/**
 * Moves each workshop's last seq past its events; answers the new last seq by workshop (a removed
 * workshop: none). One statement however many workshops the write recorded events on.
 */
async function numberEvents(tx: Db, byWorkshop: ReadonlyMap<string, readonly ChangeInput[]>): Promise<Map<string, number>> {
  if (byWorkshop.size === 1) {
    const [workshopId, inputs] = [...byWorkshop][0]!;
    const [row] = await statements(tx).number.execute({ workshopId, count: inputs.length });
    return new Map(row ? [[workshopId, row.last]] : []);
  }
  const counts = JSON.stringify([...byWorkshop].map(([workshopId, inputs]) => [workshopId, inputs.length]));
  const rows = await queryRows<{ id: string; last: number }>(
    tx,
    sql`UPDATE workshops SET last_event_seq = workshops.last_event_seq + added.count
      FROM ${jsonRows(tx, counts, [{ name: 'id', type: 'text' }, { name: 'count', type: 'integer' }])} AS added
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
  const q = statements(tx);
  const { events: eventRows, notifications: notificationRows } = tablesOf(tx);
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
      const event = { id: newId(), seq: last === undefined ? 0 : first + index, createdAt, ...input } as WorkshopEvent;
      numbered.set(input, event);
      if (last !== undefined) rows.push(event);
    });
    if (last !== undefined) write.reserve(bus, workshopId, first);
  }
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
    const chunk = rows.slice(at, at + ROWS_PER_INSERT).map(({ id, workshopId, seq, action, userId, change }) => ({ id, workshopId, seq, action, userId, change, createdAt }));
    const prepared = eventInserts(tx, chunk.length);
    if (prepared) await prepared.execute(rowValues(chunk));
    else await tx.insert(eventRows).values(chunk);
  }
  write.events.push(...write.inputs.map((input) => numbered.get(input)!));
  const notifications = write.notifications.map(({ userId, notification: n }) => ({ id: n.id, userId, type: n.type, data: n.data, read: false, createdAt: n.created_at, updatedAt: n.updated_at }));
  if (notifications.length === 1) {
    const [only] = notifications;
    await q.insertNotification.execute({ ...only!, now: only!.createdAt });
  } else {
    for (let at = 0; at < notifications.length; at += ROWS_PER_INSERT) await tx.insert(notificationRows).values(notifications.slice(at, at + ROWS_PER_INSERT));
  }
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
export function writeWorkshop<T>(deps: WriteDeps, workshopId: string, fn: (tx: Db, changes: ChangeRecorder) => Promise<T>): Promise<T> {
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
}

type BatchRun = (tx: Db, changes: ChangeRecorder, items: ReadonlyArray<BatchItem<unknown>>) => Promise<Array<BatchOutcome<unknown>>>;

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
}

/** The queues of batched writes, per store and kind. */
const queues = new WeakMap<Database, Map<string, BatchQueue>>();

/** The most requests one batch's transaction takes; more wait for the next. */
const BATCH_LIMIT = 500;

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
 */
export function writeBatched<I, O>(
  deps: WriteDeps,
  kind: string,
  workshopId: string,
  input: I,
  run: (tx: Db, changes: ChangeRecorder, items: ReadonlyArray<BatchItem<I>>) => Promise<Array<BatchOutcome<O>>>,
): Promise<O> {
  let byKind = queues.get(deps.database);
  if (!byKind) queues.set(deps.database, (byKind = new Map()));
  let queue = byKind.get(kind);
  if (!queue) byKind.set(kind, (queue = { items: [], scheduled: false, writing: false }));
  const waiting = queue;
  const answer = new Promise<O>((resolve, reject) => waiting.items.push({ workshopId, input, resolve: resolve as Pending['resolve'], reject }));
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
  while (queue.items.length > 0) await writeBatch(deps, queue.items.splice(0, BATCH_LIMIT), run);
  queue.writing = false;
}

async function writeBatch(deps: WriteDeps, batch: Pending[], run: BatchRun): Promise<void> {
  let outcomes: Array<BatchOutcome<unknown>>;
  try {
    outcomes = await write(deps, async (tx, changes) => {
      await deps.database.lockWorkshops(tx, [...new Set(batch.map((item) => item.workshopId))]);
      return run(tx, changes, batch.map(({ workshopId, input }) => ({ workshopId, input })));
    });
  } catch (err) {
    // The shared transaction failed (a lock could not be had, the commit failed): none of it stands.
    for (const item of batch) item.reject(err);
    return;
  }
  batch.forEach((item, index) => {
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
export function diffFields<T extends Record<string, unknown>>(before: T, after: T, fields: readonly (keyof T & string)[]) {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const field of fields) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = [before[field], after[field]];
  }
  return changes;
}
