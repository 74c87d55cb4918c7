import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type * as schema from './schema/index';

/** The tables, as the SQLite schema types them (the PostgreSQL schema describes the same rows: `schema-check.ts`). */
export type Schema = typeof schema;

/**
 * A handle queries are built on: the service's read handle, or the one connection of an open
 * transaction. Typed on the SQLite schema; on PostgreSQL the same builders run on the PostgreSQL
 * dialect's tables (`tablesOf`). Every query is awaited: `.all()`, `.get()`, `.run()` and the
 * raw `db.all(sql)` family exist on SQLite only (`sql.ts` has the helpers both stores answer).
 */
export type Db = BaseSQLiteDatabase<'async', unknown, Schema>;

/** Which store the service runs on: chosen once at start (`openStore`). */
export type Dialect = 'sqlite' | 'postgres';

/** What a transaction is: `transaction` (writes) or `snapshot` (consistent reads). */
export type TransactionKind = 'write' | 'snapshot';

/**
 * Locks a transaction waits for: SQLite's writer and snapshot locks (this instance's, then
 * another process's on the file); PostgreSQL's pooled connection and a workshop's row.
 */
export type StoreLock = 'writer' | 'snapshot' | 'connection' | 'workshop_row';

/** What a store reports about its transactions (metrics). Called on every transaction: must be cheap. */
export interface StoreObserver {
  /** A lock was had, or given up on, after `seconds`. */
  lockWaited(lock: StoreLock, seconds: number): void;
  /** A transaction that began has ended. */
  transactionEnded(kind: TransactionKind, outcome: 'commit' | 'rollback'): void;
}

/**
 * The tables of the store a handle belongs to. Queries take their tables from here, never from
 * an import of a schema: the same code then runs on either store's tables.
 */
export function tablesOf(db: Db): Schema {
  return db._.fullSchema;
}

/**
 * The store: one per app (`createDeps`). Reads outside transactions go through `db`; every write
 * runs in `transaction`, whose callback can reach the database only through the handle it gets
 * (a query through `db` inside it fails: `scope.ts`).
 */
export interface Database {
  readonly dialect: Dialect;
  /** Reads outside any transaction; on SQLite a connection of its own, never inside another request's transaction. */
  readonly db: Db;
  /**
   * Runs `fn` in one write transaction (SQLite: `BEGIN IMMEDIATE` on the one writer connection,
   * behind an async lock; PostgreSQL: a pooled connection at READ COMMITTED, where the caller takes
   * row locks first: `lockWorkshop`). Commits when `fn` resolves, rolls back when it throws. A lock
   * not had within about a second throws `DatabaseUnavailable` (503).
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Runs `fn` on one consistent snapshot of the database (reads only). */
  snapshot<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Locks a workshop's row for the rest of the transaction: every write to a workshop takes it
   * first, so checks and writes of two requests on one workshop cannot interleave on any instance.
   * Locking it again in the same transaction costs nothing. SQLite's single writer already holds
   * everything: nothing to do there.
   */
  lockWorkshop(tx: Db, workshopId: string): Promise<void>;
  /**
   * Locks those of `workshopIds` no other transaction holds, in one statement that waits for none
   * (PostgreSQL's `SKIP LOCKED`), and answers the ones this transaction holds now, and those that
   * do not exist (nothing to wait for: their requests are refused with the batch). A batch of writes over many workshops takes these and leaves a held
   * one to its own transaction, instead of failing everyone's writes on one busy workshop.
   */
  lockFreeWorkshops(tx: Db, workshopIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** True when the database answers a trivial query (`/health`). */
  answers(): Promise<boolean>;
  close(): Promise<void>;
}

const HANDLE = Symbol('store handle');

interface HandleKind {
  dialect: Dialect;
  /** Runs only inside transactions: what is computed through it may still roll back. */
  transaction: boolean;
}

/** Marks a Drizzle handle the store made with its dialect and use (`dialectOf`, `isTransactionHandle`). */
export function markHandle(handle: object, kind: HandleKind): Db {
  (handle as { [HANDLE]?: HandleKind })[HANDLE] = kind;
  return handle as Db;
}

function kindOf(db: Db): HandleKind {
  const kind = (db as Db & { [HANDLE]?: HandleKind })[HANDLE];
  if (!kind) throw new Error('A database handle the store did not make.');
  return kind;
}

/** The dialect of the store a handle belongs to: for the few statements the dialects write differently (`sql.ts`). */
export function dialectOf(db: Db): Dialect {
  return kindOf(db).dialect;
}

/** Whether `db` is a transaction's handle (caches of answers skip those). */
export function isTransactionHandle(db: Db): boolean {
  return kindOf(db).transaction;
}

const UNGATED = Symbol('store under a gate');

/**
 * `gated` in front of `store`: a store whose write transactions something may refuse (the drain's
 * gate), remembering the store beneath for `ungatedStore`.
 */
export function gatedStore(store: Database, transaction: Database['transaction']): Database {
  return Object.assign({ ...store, transaction }, { [UNGATED]: store });
}

/**
 * The store beneath any gate: for bookkeeping that must end as the request's own write ended
 * (keeping an idempotency key's answer once its write committed, or freeing the key once it was
 * refused), even after the gate closed.
 */
export function ungatedStore(database: Database): Database {
  return (database as Database & { [UNGATED]?: Database })[UNGATED] ?? database;
}
