import { eq, sql } from 'drizzle-orm';
import { tablesOf, type Database, type Db } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { isRetryable } from '../../db/errors';
import { named, preparedPerDb } from '../../db/prepared';
import { inSavepoint } from '../../db/sql';
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
  const { workshops, events, notifications } = tablesOf(db);
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
    insertEvent: named(
      db.insert(events).values({
        id: p('id'),
        workshopId: p('workshopId'),
        seq: p('seq'),
        action: p('action'),
        userId: p('userId'),
        change: p('change'),
        createdAt: p('createdAt'),
      }),
      'events_insert',
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

/** Rows per insert statement: well under either store's limit of bound parameters. */
const ROWS_PER_INSERT = 500;

/**
 * Numbers the events the writes recorded, per workshop in the order recorded, stores them and the
 * notifications in `tx`, and reserves each write's place in the bus's publishing order. One
 * statement numbers a workshop's events of all the writes. A removed workshop has no row left to
 * number its last event: that one is broadcast with `seq` 0 and not stored.
 */
async function storeRecorded(tx: Db, bus: DomainEventBus, writes: readonly Recorded[]): Promise<void> {
  const q = statements(tx);
  const byWorkshop = new Map<string, Array<{ input: ChangeInput; write: Recorded }>>();
  for (const write of writes) {
    for (const input of write.inputs) {
      const list = byWorkshop.get(input.workshopId);
      if (list) list.push({ input, write });
      else byWorkshop.set(input.workshopId, [{ input, write }]);
    }
  }
  const numbered = new Map<ChangeInput, WorkshopEvent>();
  for (const [workshopId, entries] of byWorkshop) {
    const [row] = await q.number.execute({ workshopId, count: entries.length });
    const first = row ? row.last - entries.length + 1 : 0;
    const createdAt = nowIso();
    const events = entries.map(({ input }, index) => {
      const event = { id: newId(), seq: row ? first + index : 0, createdAt, ...input } as WorkshopEvent;
      numbered.set(input, event);
      return event;
    });
    if (!row) continue;
    if (events.length === 1) await q.insertEvent.execute({ ...events[0]! });
    else {
      const { events: table } = tablesOf(tx);
      for (let at = 0; at < events.length; at += ROWS_PER_INSERT) {
        await tx.insert(table).values(events.slice(at, at + ROWS_PER_INSERT).map(({ id, seq, action, userId, change }) => ({ id, workshopId, seq, action, userId, change, createdAt })));
      }
    }
    const reserved = new Set<Recorded>();
    entries.forEach(({ write }, index) => {
      if (reserved.has(write)) return;
      reserved.add(write);
      write.reserve(bus, workshopId, first + index);
    });
  }
  for (const write of writes) {
    write.events.push(...write.inputs.map((input) => numbered.get(input)!));
    for (const { userId, notification } of write.notifications) {
      await q.insertNotification.execute({ id: notification.id, userId, type: notification.type, data: notification.data, now: notification.created_at });
    }
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
        await storeRecorded(tx, deps.bus, [recorded]);
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

interface Queued {
  run: (tx: Db, changes: ChangeRecorder) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Writes waiting for their workshop's next batch, per store and workshop. */
const queues = new WeakMap<Database, Map<string, Queued[]>>();

/**
 * `writeWorkshop` for the busiest small writes (votes): writes to one workshop that arrive
 * together share one transaction, one lock of the workshop and one commit (group commit). Each
 * runs in a savepoint of its own, so one refused write (a limit reached) leaves the others; each
 * is answered, and its events published, only once the shared transaction has committed. Writes
 * queued while the event loop handles one batch of I/O form the next batch.
 */
export function writeSoon<T>(deps: WriteDeps, workshopId: string, fn: (tx: Db, changes: ChangeRecorder) => Promise<T>): Promise<T> {
  let byWorkshop = queues.get(deps.database);
  if (!byWorkshop) queues.set(deps.database, (byWorkshop = new Map()));
  let queue = byWorkshop.get(workshopId);
  if (!queue) {
    byWorkshop.set(workshopId, (queue = []));
    setImmediate(() => {
      byWorkshop.delete(workshopId);
      void flush(deps, workshopId, queue!);
    });
  }
  return new Promise<T>((resolve, reject) => queue.push({ run: fn as Queued['run'], resolve: resolve as Queued['resolve'], reject }));
}

async function flush(deps: WriteDeps, workshopId: string, batch: Queued[]): Promise<void> {
  const outcomes = batch.map(() => ({ recorded: new Recorded(), ok: false, value: undefined as unknown, error: undefined as unknown }));
  try {
    await deps.database.transaction(async (tx) => {
      await deps.database.lockWorkshop(tx, workshopId);
      for (const [index, item] of batch.entries()) {
        const outcome = outcomes[index]!;
        try {
          outcome.value = await inSavepoint(tx, () => item.run(tx, outcome.recorded.recorder));
          outcome.ok = true;
        } catch (err) {
          outcome.error = err;
          outcome.recorded.rolledBack();
        }
      }
      // Numbered together, in the order the writes ran.
      await storeRecorded(
        tx,
        deps.bus,
        outcomes.filter((outcome) => outcome.ok).map((outcome) => outcome.recorded),
      );
    });
  } catch (err) {
    // The shared transaction failed (the lock could not be had, the commit failed): none of it stands.
    for (const [index, item] of batch.entries()) {
      if (outcomes[index]!.ok) outcomes[index]!.recorded.rolledBack();
      item.reject(err);
    }
    return;
  }
  for (const [index, item] of batch.entries()) {
    const outcome = outcomes[index]!;
    if (outcome.ok) {
      outcome.recorded.publish(deps.bus);
      item.resolve(outcome.value);
    } else {
      item.reject(outcome.error);
    }
  }
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
