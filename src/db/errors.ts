/**
 * What the stores' errors mean to the service, whichever store raised them. Drivers' errors may
 * arrive wrapped (Drizzle wraps PostgreSQL's in a `DrizzleQueryError` with the driver's as `cause`).
 */

/** The database could not be had in time (a lock, a connection): nothing was written; try again. */
export class DatabaseUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailable';
  }
}

/**
 * A COMMIT that got no answer (the connection was lost or fell silent while it was on its way): the
 * transaction may have committed or not. Still a 503, never an acknowledgement
 * (docs/operations.md#when-the-database-is-away-or-busy); but what the transaction recorded may
 * exist, so a caller must not undo outside effects it tied to those rows (a blob written for a row
 * that may be there).
 */
export class CommitInDoubt extends DatabaseUnavailable {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommitInDoubt';
  }
}

function* chain(err: unknown): Generator<{ code?: unknown; message?: unknown }> {
  let current = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    yield current as { code?: unknown; message?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

function codeOf(err: unknown): string | undefined {
  for (const link of chain(err)) if (typeof link.code === 'string') return link.code;
  return undefined;
}

/** A unique index refused a row (the 409s of taken e-mails, second ratings, …). */
export function isUniqueViolation(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** Two transactions met in a way the database resolved by failing one: running it again whole succeeds. */
export function isRetryable(err: unknown): boolean {
  const code = codeOf(err);
  return code === '40001' || code === '40P01';
}

const UNAVAILABLE_CODES = new Set([
  // SQLite: another connection held the write lock past the busy timeout.
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  // PostgreSQL: lock or statement timeout, serialization failure or deadlock (after retries),
  // too many connections.
  '55P03',
  '57014',
  '40001',
  '40P01',
  '53300',
]);

/**
 * No connection could be had: refused, not found, or not started in time (the server starting up
 * or shutting down, node-postgres' connect timeouts). Nothing was sent on it.
 */
const NOT_CONNECTED_CODES = new Set(['57P03', '08001', '08004', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const NOT_CONNECTED_MESSAGE = /timeout exceeded when trying to connect|Connection terminated due to connection timeout/;

/**
 * An established connection failed: the server ended the session (shutting down, crashed, an idle
 * transaction's limit) or the socket broke, and node-postgres reports by message only a connection
 * it lost or gave up waiting on (`query_timeout`: the server or the network fell silent).
 */
const LOST_CODES = new Set(['57P01', '57P02', '25P03', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
const LOST_MESSAGE =
  /Connection terminated|Query read timeout|Client has encountered a connection error|Client was closed and is not queryable/;

function notConnected(err: unknown): boolean {
  for (const link of chain(err)) {
    if (typeof link.code === 'string' && NOT_CONNECTED_CODES.has(link.code)) return true;
    if (typeof link.message === 'string' && NOT_CONNECTED_MESSAGE.test(link.message)) return true;
  }
  return false;
}

/**
 * The connection failed under the statement: lost, ended by the server, or silent past its limit.
 * What the statement did is unknown to the client (a COMMIT among them is in doubt), and the
 * connection is of no further use. Not so for a connection never had: nothing was sent on it.
 */
export function isConnectionLost(err: unknown): boolean {
  if (notConnected(err)) return false;
  for (const link of chain(err)) {
    const code = link.code;
    if (typeof code === 'string' && (LOST_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof link.message === 'string' && LOST_MESSAGE.test(link.message)) return true;
  }
  return false;
}

/**
 * The database is away or too busy: the request answers 503 with Retry-After
 * (docs/operations.md#when-the-database-is-away-or-busy), and nothing it did was written, or, for a
 * `CommitInDoubt`, nothing of it was acknowledged.
 */
export function isUnavailable(err: unknown): boolean {
  for (const link of chain(err)) {
    if (link instanceof DatabaseUnavailable) return true;
    const code = link.code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_BUSY_'))) return true;
  }
  return notConnected(err) || isConnectionLost(err) || storeClosed(err);
}

/**
 * A query on a store already closed (at shutdown, or by a test): better-sqlite3's closed
 * connection, pg's ended pool. The store is away, as far as the request can tell.
 */
function storeClosed(err: unknown): boolean {
  for (const link of chain(err)) {
    if (link instanceof TypeError && link.message === 'The database connection is not open') return true;
    if (link instanceof Error && link.message === 'Cannot use a pool after calling end on the pool') return true;
  }
  return false;
}

/**
 * Text PostgreSQL cannot store: a NUL character in a text value (22021) or in JSON (22P05). The
 * edge refuses these before any query (`parseInput`); this catches an input that got past it.
 */
export function isUnstorableText(err: unknown): boolean {
  const code = codeOf(err);
  return code === '22021' || code === '22P05';
}
