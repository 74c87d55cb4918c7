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
  // the server shutting down or refusing connections, the connection lost.
  '55P03',
  '57014',
  '40001',
  '40P01',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // Node's sockets.
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * The database is away or too busy: the request answers 503 with Retry-After (CONTRACT §10), and
 * nothing it did was written.
 */
export function isUnavailable(err: unknown): boolean {
  for (const link of chain(err)) {
    if (link instanceof DatabaseUnavailable) return true;
    const code = link.code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_BUSY_') || code.startsWith('08'))) return true;
    // node-postgres reports a connection it lost, or could not make in time, by message only.
    if (typeof link.message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(link.message)) {
      return true;
    }
  }
  return false;
}
