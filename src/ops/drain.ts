import type { MiddlewareHandler } from 'hono';
import { gatedStore, type Database, type Db } from '../db/database';
import { AppError } from '../http/errors';
import type { AppEnv } from '../http/env';
import type { Readiness } from './readiness';

/*
 * What a drain (SIGTERM) promises the clients of the HTTP API: every write that commits is
 * answered, and a request the drain cuts has not committed, so a client that got no answer may
 * send it again without writing it twice.
 */

/** The probes keep answering as they do while draining: `/health` says the instance is alive, `/ready` that it drains. */
const PROBES = new Set(['/health', '/ready', '/metrics']);

const shuttingDown = () =>
  new AppError('service_unavailable', 'The server is shutting down; nothing was written. Send the request again.', {
    headers: { 'Retry-After': '1', Connection: 'close' },
  });

/**
 * Refuses every request that arrives once the drain has begun (on a connection kept alive from
 * before) with 503 and `Connection: close`: the client sends it again on a new connection, which
 * the load balancer gives to another instance. Without this, clients writing on kept-alive
 * connections kept this instance busy until the drain cut their connections under requests still
 * running.
 */
export function refuseWhileDraining(readiness: Pick<Readiness, 'phase'>): MiddlewareHandler<AppEnv> {
  return async function refuseWhenDraining(c, next) {
    if (readiness.phase === 'draining' && !PROBES.has(c.req.path)) throw shuttingDown();
    return next();
  };
}

/**
 * Where the drain stops the HTTP API's writes. Once `close` is called (the drain's cut-off, when
 * the requests still running are about to have their connections cut) a write transaction of the
 * app neither begins nor commits: it rolls back and its request answers 503. `close` resolves once
 * the commits already under way have ended, so that the connections are cut only after them and
 * after the answers of the requests they belong to.
 */
export class WriteGate {
  private closed = false;
  private committing = 0;
  private readonly settled: Array<() => void> = [];

  /**
   * `database` with its write transactions going through this gate. Only the app's requests use it:
   * what keeps running after the cut-off on purpose (the mail being sent, the documents compacted
   * as they close) writes through the database itself.
   */
  guard(database: Database): Database {
    return gatedStore(database, (fn) => this.transaction(database, fn));
  }

  /** From now on nothing begins or commits through the gate; resolves once the commits under way have ended. */
  close(): Promise<void> {
    this.closed = true;
    if (this.committing === 0) return Promise.resolve();
    return new Promise((resolve) => this.settled.push(resolve));
  }

  private refuseIfClosed(): void {
    if (this.closed) throw shuttingDown();
  }

  private async transaction<T>(database: Database, fn: (tx: Db) => Promise<T>): Promise<T> {
    this.refuseIfClosed();
    let committing = false;
    try {
      return await database.transaction(async (tx) => {
        const result = await fn(tx);
        // Checked as the body ends, right before the store commits: refused, the write rolls back.
        this.refuseIfClosed();
        committing = true;
        this.committing += 1;
        return result;
      });
    } finally {
      if (committing && --this.committing === 0) for (const resolve of this.settled.splice(0)) resolve();
    }
  }
}
