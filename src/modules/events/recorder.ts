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

/**
 * Runs `fn` in one IMMEDIATE transaction (the write lock is taken up front, so checks and writes
 * cannot interleave, even across processes sharing the file), then publishes what it recorded.
 * Nothing is published when `fn` throws.
 */
export function write<T>(deps: WriteDeps, fn: (tx: Tx, changes: ChangeRecorder) => T): T {
  const sql = statementsFor(deps.database.sqlite);
  const events: WorkshopEvent[] = [];
  const notifications: NotificationEvent[] = [];
  const callbacks: Array<() => void> = [];
  const rollbacks: Array<() => void> = [];

  const recorder: ChangeRecorder = {
    record(input) {
      const row = sql.nextSeq.get(input.workshopId);
      // A removed workshop has no row left to number its last event; it is still broadcast.
      const event: WorkshopEvent = { id: newId(), seq: row?.seq ?? 0, createdAt: nowIso(), ...input };
      if (row) {
        sql.insertEvent.run(event.id, event.workshopId, event.seq, event.action, event.userId, JSON.stringify(event.change), event.createdAt);
      }
      events.push(event);
      return event;
    },
    notify(userIds, type, data) {
      const now = nowIso();
      const serialized = JSON.stringify(data);
      for (const userId of userIds) {
        const id = newId();
        sql.insertNotification.run(id, userId, type, serialized, now, now);
        notifications.push({ userId, notification: { id, type, data, read: false, created_at: now, updated_at: now } });
      }
    },
    afterCommit(callback) {
      callbacks.push(callback);
    },
    onRollback(callback) {
      rollbacks.push(callback);
    },
  };

  let result: T;
  try {
    result = deps.database.db.transaction((tx) => fn(tx, recorder), { behavior: 'immediate' });
  } catch (err) {
    for (const callback of rollbacks) guarded(callback, 'rollback');
    throw err;
  }

  // The write has committed: a failing listener must not turn it into an error for the caller.
  for (const event of events) guarded(() => deps.bus.emit('workshop', event));
  for (const notification of notifications) guarded(() => deps.bus.emit('notification', notification));
  for (const callback of callbacks) guarded(callback);
  return result;
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
