import pg from 'pg';

/*
 * Time limits: a database that is away, stuck or too busy answers 503 within 5 s, never a hang or
 * a 500 (docs/operations.md#when-the-database-is-away-or-busy). The server enforces its own
 * (`sessionSettings`), so what it gave up also releases its locks; the client adds one for a server
 * or network that fell silent.
 *
 * The longest a request waits on a database that stops answering: CONNECT_WAIT_MS for a
 * connection (2 s: all pooled ones busy, or a new one not started), then STATEMENT_LIMIT_MS +
 * SILENCE_MARGIN_MS for the first statement that gets no answer (2.5 s); its connection is then
 * dropped at once, without a ROLLBACK round trip (the server rolls back when it sees the connection
 * close, or after IDLE_IN_TRANSACTION_MS). 4.5 s in all: the statements before it were answered,
 * in the time they take on a healthy database. A database that answers every statement slowly but
 * within its limit is bounded per statement, not per request.
 */
/** A lock not had within this long fails the statement (55P03): the request answers 503. */
const LOCK_WAIT_MS = 1_000;
/** A pooled connection not had within this long: 503, rather than a request that hangs. */
const CONNECT_WAIT_MS = 2_000;
/** The server cancels a statement running longer (57014), releasing what it locked: 503. */
export const STATEMENT_LIMIT_MS = 2_000;
/**
 * A statement still unanswered this long after the server's own limit would have ended it: the
 * server or the network is silent. The client gives it up ('Query read timeout') and drops the connection.
 */
export const SILENCE_MARGIN_MS = 500;
/**
 * The server ends a session idle this long inside a transaction (25P03), releasing its row locks:
 * an instance frozen or cut off mid-transaction does not hold a workshop longer than this.
 */
const IDLE_IN_TRANSACTION_MS = 5_000;
/** How long an instance waits for another one's migrations before giving up its start. */
export const MIGRATION_WAIT_MS = 120_000;

/** The server-side limits, set on every connection as it starts (libpq's `options`). */
function sessionSettings(statementLimitMs: number): string {
  return [
    `lock_timeout=${LOCK_WAIT_MS}`,
    `statement_timeout=${statementLimitMs}`,
    `idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`,
  ]
    .map((setting) => `-c ${setting}`)
    .join(' ');
}

/**
 * node-postgres answers `int8` (every `count(*)`) and `numeric` (every `sum()` of integers) as
 * strings, to keep precision no count here needs: the service reads numbers, as from SQLite.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * The pool a store draws its connections from, with the time limits above on every connection and
 * on the wait for one, and numbers read as numbers.
 */
export function createPool(url: string, poolSize: number, statementLimitMs: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_WAIT_MS,
    query_timeout: statementLimitMs + SILENCE_MARGIN_MS,
    options: sessionSettings(statementLimitMs),
    application_name: 'workshop-server',
    keepAlive: true,
    types,
  });
  // A pooled connection the server dropped while idle is replaced on next use; it must not crash the process.
  pool.on('error', (err) => console.error('[db] an idle PostgreSQL connection failed:', err.message));
  // The pool listens to idle connections only. One lost while a transaction holds it (the server
  // stopped, say) fails that transaction's statements, which answer 503 and leave it out of the
  // pool; its 'error' event, unheard, would end the process.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
