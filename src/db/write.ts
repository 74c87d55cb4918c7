import { eq, sql } from 'drizzle-orm';
import { tablesOf, type Database, type Db, type Schema } from './database';
import { newId, nowIso } from './columns';
import { isRetryable } from './errors';
import { named, preparedPerDb, rowInserter, type Insertable } from './prepared';
import { jsonRows, queryRows } from './sql';
import type { DomainEventBus, NotificationEvent, PublishTicket } from '../domain/bus';
import { cardUserIdOf, type ChangeInput, type WorkshopEvent } from '../domain/events';
import type { ChangeRecorder } from '../domain/recorder';

export interface WriteDeps {
  database: Database;
  bus: DomainEventBus;
  /** Told of every write's events inside its transaction (the webhook outbox), when there is one. */
  changeOutbox?: ChangeOutbox;
  /**
   * The API token of the request that writes, when it came with one: every event the write logs
   * names it (docs/api.md#events). A route hands its services `actingDeps(deps, c)`.
   */
  apiTokenId?: string | undefined;
}

/**
 * What must hear of changes durably (webhook deliveries): it writes its rows in the change's own
 * transaction, so they exist exactly when the change committed.
 */
export interface ChangeOutbox {
  stored(tx: Db, events: readonly WorkshopEvent[], changes: ChangeRecorder): Promise<void>;
  /** Rows queued by other means in this transaction (a test ping, a retry): the senders hear of them once it commits. */
  queuedBy(changes: ChangeRecorder): void;
  /** Calls `listener` after each transaction that queued rows commits; returns the function that stops it. */
  onQueued(listener: () => void): () => void;
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
  'id' | 'workshopId' | 'seq' | 'action' | 'userId' | 'cardUserId' | 'apiTokenId' | 'change' | 'createdAt'
>;

const insertEvents = rowInserter(
  'events_insert',
  ['id', 'workshopId', 'seq', 'action', 'userId', 'cardUserId', 'apiTokenId', 'change', 'createdAt'],
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
async function storeRecorded(tx: Db, deps: WriteDeps, write: Recorded): Promise<void> {
  const { bus } = deps;
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
      apiTokenId: deps.apiTokenId ?? null,
      change,
      createdAt,
    })),
  );
  write.events.push(...write.inputs.map((input) => numbered.get(input)!));
  if (deps.changeOutbox && write.events.length > 0) await deps.changeOutbox.stored(tx, write.events, write.recorder);
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
        await storeRecorded(tx, deps, recorded);
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

function guarded(fn: () => void, after = 'commit') {
  try {
    fn();
  } catch (err) {
    console.error(`[events] listener failed after ${after}`, err);
  }
}
