import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'drizzle-orm/logger';

interface OpenTransaction {
  open: boolean;
}

/** A query through the read handle while a transaction is open in the same async context. */
export class QueryOutsideTransaction extends Error {
  constructor(query: string) {
    super(`A query ran outside the open transaction it was called in: ${query.slice(0, 120)}`);
    this.name = 'QueryOutsideTransaction';
  }
}

/**
 * Which async context is inside an open transaction. The code a write runs must reach the
 * database only through its transaction's handle: a read through the service's read handle
 * would miss the transaction's own writes (SQLite: another connection) or wait on a pool
 * connection while holding one (PostgreSQL). The read handle's query logger asks `guard`, so such a
 * query fails at once in development and tests, and is logged in production.
 */
export class TransactionScope {
  private readonly storage = new AsyncLocalStorage<OpenTransaction>();

  constructor(private readonly strict: boolean) {}

  /** Runs `fn` as the body of an open transaction; the scope closes when it settles. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inside) throw new Error('A transaction cannot be opened inside another one; pass its handle on instead.');
    const current: OpenTransaction = { open: true };
    try {
      return await this.storage.run(current, fn);
    } finally {
      // Work the body started and left running (a timer, a promise not awaited) is outside from now on.
      current.open = false;
    }
  }

  /** True while the calling async context is inside an open transaction. */
  get inside(): boolean {
    return this.storage.getStore()?.open === true;
  }

  /** The query logger of the read handle: refuses its queries inside an open transaction. */
  guard(): Logger {
    return {
      logQuery: (query) => {
        if (!this.inside) return;
        const err = new QueryOutsideTransaction(query);
        if (this.strict) throw err;
        console.error('[db]', err);
      },
    };
  }
}
