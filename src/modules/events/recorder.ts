import type Database from 'better-sqlite3';
import type { Db, Tx } from '../../db/client';
import { newId, nowIso } from '../../db/columns';
import type { DomainEventBus, NotificationEvent } from './bus';
import type { ChangeInput, WorkshopEvent } from './changes';

/** Collects what a write transaction changed; published only once the transaction commits. */
export interface ChangeRecorder {
  /**
   * Appends an event to the workshop's log (in the transaction) and queues its broadcast. The
   * payload's type follows the action (`changes.ts`).
   */
  record(input: ChangeInput): WorkshopEvent;
  /** Creates a notification for each user (in the transaction) and queues its delivery. */
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
  database: { db: Db; sqlite: Database.Database };
  bus: DomainEventBus;
}

/** Prepared once per connection: these run on every write, so they skip the query builder. */
const statements = new WeakMap<Database.Database, ReturnType<typeof prepare>>();

function prepare(sqlite: Database.Database) {
  return {
    nextSeq: sqlite.prepare<[string], { seq: number }>(
      'UPDATE workshops SET last_event_seq = last_event_seq + 1 WHERE id = ? RETURNING last_event_seq AS seq',
    ),
    insertEvent: sqlite.prepare(
      'INSERT INTO events (id, workshop_id, seq, action, user_id, change, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertNotification: sqlite.prepare(
      'INSERT INTO notifications (id, user_id, type, data, read, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)',
    ),
  };
}

function statementsFor(sqlite: Database.Database) {
  let prepared = statements.get(sqlite);
  if (!prepared) {
    prepared = prepare(sqlite);
    statements.set(sqlite, prepared);
  }
  return prepared;
}

/** What one write recorded, published once its transaction commits. */
class Recorded {
  readonly events: WorkshopEvent[] = [];
  readonly notifications: NotificationEvent[] = [];
  readonly callbacks: Array<() => void> = [];
  readonly rollbacks: Array<() => void> = [];

  recorder(sql: ReturnType<typeof prepare>): ChangeRecorder {
    return {
      record: (input) => {
        const row = sql.nextSeq.get(input.workshopId);
        // A removed workshop has no row left to number its last event; it is still broadcast.
        const event: WorkshopEvent = { id: newId(), seq: row?.seq ?? 0, createdAt: nowIso(), ...input };
        if (row) {
          sql.insertEvent.run(event.id, event.workshopId, event.seq, event.action, event.userId, JSON.stringify(event.change), event.createdAt);
        }
        this.events.push(event);
        return event;
      },
      notify: (userIds, type, data) => {
        const now = nowIso();
        const serialized = JSON.stringify(data);
        for (const userId of userIds) {
          const id = newId();
          sql.insertNotification.run(id, userId, type, serialized, now, now);
          this.notifications.push({ userId, notification: { id, type, data, read: false, created_at: now, updated_at: now } });
        }
      },
      afterCommit: (callback) => {
        this.callbacks.push(callback);
      },
      onRollback: (callback) => {
        this.rollbacks.push(callback);
      },
    };
  }

  rolledBack(): void {
    for (const callback of this.rollbacks) guarded(callback, 'rollback');
  }

  /** The write has committed: a failing listener must not turn it into an error for the caller. */
  publish(bus: DomainEventBus): void {
    for (const event of this.events) guarded(() => bus.emit('workshop', event));
    for (const notification of this.notifications) guarded(() => bus.emit('notification', notification));
    for (const callback of this.callbacks) guarded(callback);
  }
}

/**
 * Runs `fn` in one IMMEDIATE transaction (the write lock is taken up front, so checks and writes
 * cannot interleave, even across processes sharing the file), then publishes what it recorded.
 * Nothing is published when `fn` throws.
 */
export function write<T>(deps: WriteDeps, fn: (tx: Tx, changes: ChangeRecorder) => T): T {
  const recorded = new Recorded();
  const recorder = recorded.recorder(statementsFor(deps.database.sqlite));
  let result: T;
  try {
    result = deps.database.db.transaction((tx) => fn(tx, recorder), { behavior: 'immediate' });
  } catch (err) {
    recorded.rolledBack();
    throw err;
  }
  recorded.publish(deps.bus);
  return result;
}

interface Queued {
  run: (db: Db, changes: ChangeRecorder) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

const queues = new WeakMap<Database.Database, Queued[]>();

/**
 * `write` for the busiest small writes (votes): writes that arrive together share one transaction
 * and one commit (group commit). Each runs in a savepoint of its own, so one refused write (a
 * limit reached) leaves the others; each is answered, and its events published, only once the
 * shared transaction has committed. Writes queued while the event loop handles one batch of I/O
 * form the next batch. `fn` gets the database handle: its statements run inside the transaction.
 */
export function writeSoon<T>(deps: WriteDeps, fn: (db: Db, changes: ChangeRecorder) => T): Promise<T> {
  const { sqlite } = deps.database;
  let queue = queues.get(sqlite);
  if (!queue) {
    queue = [];
    queues.set(sqlite, queue);
    setImmediate(() => flush(deps, sqlite));
  }
  return new Promise<T>((resolve, reject) => queue!.push({ run: fn, resolve: resolve as (value: unknown) => void, reject }));
}

function flush(deps: WriteDeps, sqlite: Database.Database): void {
  const batch = queues.get(sqlite) ?? [];
  queues.delete(sqlite);
  const sql = statementsFor(sqlite);
  const outcomes = batch.map(() => ({ recorded: new Recorded(), ok: false, value: undefined as unknown, error: undefined as unknown }));
  try {
    sqlite
      .transaction(() => {
        batch.forEach((item, index) => {
          const outcome = outcomes[index]!;
          try {
            // A nested transaction is a savepoint: a write that throws takes back only its own rows.
            outcome.value = sqlite.transaction(() => item.run(deps.database.db, outcome.recorded.recorder(sql)))();
            outcome.ok = true;
          } catch (err) {
            outcome.error = err;
            // A failure SQLite answers by rolling the whole transaction back (disk full, I/O):
            // the writes after it would run outside any transaction, so none of the batch stands.
            if (!sqlite.inTransaction) throw err;
          }
        });
      })
      .immediate();
  } catch (err) {
    // The shared transaction failed (the lock could not be had, the commit failed): none of it stands.
    for (const [index, item] of batch.entries()) {
      outcomes[index]!.recorded.rolledBack();
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
      outcome.recorded.rolledBack();
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
