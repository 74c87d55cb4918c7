import { sql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { markHandle, type Db, type StoreObserver, type TransactionKind } from './database';
import { CommitInDoubt, DatabaseUnavailable, isConnectionLost, isUnavailable } from './errors';
import * as schema from './schema-pg/index';
import type { TransactionScope } from './scope';

/**
 * Locks workshops' rows until the transaction ends, in the order of their ids (prepared once per
 * pooled connection; the ids as a JSON array, one statement for any number).
 */
function workshopLocks(db: NodePgDatabase<typeof schema>) {
  const { workshops } = schema;
  const rows = () =>
    db
      .select({ id: workshops.id })
      .from(workshops)
      .where(
        sql`${workshops.id} = ANY(ARRAY(SELECT json_array_elements_text(${sql.placeholder('workshopIds')}::json)))`,
      );
  return {
    // In id order, so two transactions locking several workshops cannot deadlock.
    waiting: rows().orderBy(workshops.id).for('update').prepare('store_lock_workshops'),
    // Waits for none, so the order does not matter.
    free: rows().for('update', { skipLocked: true }).prepare('store_lock_free_workshops'),
    // Which exist, locked or not: what `free` passed over is held elsewhere, or gone.
    existing: rows().prepare('store_workshops_existing'),
  };
}

/**
 * The transaction runner of a PostgreSQL store: a transaction holds one pooled connection for its
 * whole body and runs at READ COMMITTED, where writes take row locks first (`lockWorkshop`).
 */
export class PostgresTransactions {
  /** Once set, no connection is handed out any more. */
  closed = false;
  // One handle per pooled connection, made once: its prepared statements stay with it.
  private readonly handles = new WeakMap<pg.PoolClient, Db>();
  private readonly locks = new WeakMap<Db, ReturnType<typeof workshopLocks>>();
  // The workshops each open transaction has locked: locking one again is free.
  private readonly locked = new WeakMap<Db, Set<string>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly scope: TransactionScope,
    private readonly observer: StoreObserver | undefined,
  ) {}

  private handleOf(client: pg.PoolClient): Db {
    let handle = this.handles.get(client);
    if (!handle) {
      const pgHandle = drizzle(client, { schema });
      handle = markHandle(pgHandle, { dialect: 'postgres', transaction: true });
      this.handles.set(client, handle);
      this.locks.set(handle, workshopLocks(pgHandle));
    }
    return handle;
  }

  private async connect(): Promise<pg.PoolClient> {
    if (this.closed) throw new DatabaseUnavailable('The database is closed.');
    const waitStarted = performance.now();
    try {
      return await this.pool.connect();
    } catch (err) {
      throw new DatabaseUnavailable('No database connection could be had in time.', { cause: err });
    } finally {
      this.observer?.lockWaited('connection', (performance.now() - waitStarted) / 1000);
    }
  }

  private locksOf(tx: Db) {
    const lock = this.locks.get(tx);
    const held = this.locked.get(tx);
    if (!lock || !held) throw new Error('Workshops are locked with the handle of an open transaction.');
    return { lock, held };
  }

  async lockWorkshop(tx: Db, workshopId: string): Promise<void> {
    const { lock, held } = this.locksOf(tx);
    if (held.has(workshopId)) return;
    // A row lock not had within `lock_timeout` fails the statement; that wait counts too.
    const waitStarted = performance.now();
    try {
      await lock.waiting.execute({ workshopIds: JSON.stringify([workshopId]) });
    } finally {
      this.observer?.lockWaited('workshop_row', (performance.now() - waitStarted) / 1000);
    }
    held.add(workshopId);
  }

  async lockFreeWorkshops(tx: Db, workshopIds: readonly string[]): Promise<ReadonlySet<string>> {
    const { lock, held } = this.locksOf(tx);
    const wanted = workshopIds.filter((id) => !held.has(id));
    if (wanted.length > 0)
      for (const { id } of await lock.free.execute({ workshopIds: JSON.stringify(wanted) })) held.add(id);
    const passedOver = wanted.filter((id) => !held.has(id));
    // A workshop that is gone has nothing to wait for: its requests are answered (404) with the batch.
    const gone = new Set(passedOver);
    if (passedOver.length > 0)
      for (const { id } of await lock.existing.execute({ workshopIds: JSON.stringify(passedOver) })) gone.delete(id);
    return new Set(workshopIds.filter((id) => held.has(id) || gone.has(id)));
  }

  async run<T>(kind: TransactionKind, begin: string, fn: (db: Db) => Promise<T>): Promise<T> {
    if (this.scope.inside)
      throw new Error('A transaction cannot be opened inside another one; pass its handle on instead.');
    const client = await this.connect();
    // Set when the connection must not be handed out again.
    const broken: { err?: Error } = {};
    try {
      await client.query(begin);
      const handle = this.handleOf(client);
      this.locked.set(handle, new Set());
      const result = await this.body(kind, client, handle, fn, broken);
      await this.commit(kind, client, broken);
      return result;
    } catch (err) {
      // A connection that failed mid-transaction is not handed out again.
      if (isUnavailable(err)) broken.err ??= err as Error;
      throw err;
    } finally {
      this.locked.delete(this.handleOf(client));
      client.release(broken.err);
    }
  }

  /** Runs the transaction's body; when it fails, rolls back and rethrows. */
  private async body<T>(
    kind: TransactionKind,
    client: pg.PoolClient,
    handle: Db,
    fn: (db: Db) => Promise<T>,
    broken: { err?: Error },
  ): Promise<T> {
    try {
      return await this.scope.run(() => fn(handle));
    } catch (err) {
      // A connection lost or silent is dropped, not asked to roll back: the ROLLBACK would wait
      // behind the statement still unanswered. The server rolls back as the connection closes,
      // or, if it cannot hear that, once its own limits end the statement and the idle session.
      if (isConnectionLost(err)) broken.err = err as Error;
      else await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken.err = rollbackFailed));
      this.observer?.transactionEnded(kind, 'rollback');
      throw err;
    }
  }

  private async commit(kind: TransactionKind, client: pg.PoolClient, broken: { err?: Error }): Promise<void> {
    try {
      await client.query('COMMIT');
    } catch (err) {
      // Counted with the rollbacks either way: neither is acknowledged.
      this.observer?.transactionEnded(kind, 'rollback');
      // The server's own refusal (a deferred check, a serialization failure) rolled it back.
      if (err instanceof pg.DatabaseError && !isConnectionLost(err)) throw err;
      // No answer: it may or may not have happened. Not acknowledged, and said so to the caller,
      // which must not undo what it did outside the database for it (`CommitInDoubt`).
      broken.err = err as Error;
      throw new CommitInDoubt('The database did not answer the commit; the write may or may not have been stored.', {
        cause: err,
      });
    }
    this.observer?.transactionEnded(kind, 'commit');
  }
}
