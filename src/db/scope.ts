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
 * connection while holding one (PostgreSQL), and a transaction opened inside another would wait
 * for the lock its caller holds. In development and tests (`checked`), the read handle's query
 * logger asks `guard`, so such a query fails at once, and so does a nested transaction.
 *
 * In production nothing is tracked: on Node 20 an AsyncLocalStorage makes every promise of the
 * process slower (a fifth of the request rate measured on the simplest route), and the checks are
 * there to catch mistakes the test suite runs into first.
 */
export class TransactionScope {
  private readonly storage: AsyncLocalStorage<OpenTransaction> | null;

  constructor(checked: boolean) {
    this.storage = checked ? new AsyncLocalStorage<OpenTransaction>() : null;
  }

  /** Runs `fn` as the body of an open transaction; the scope closes when it settles. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.storage) return fn();
    if (this.inside) throw new Error('A transaction cannot be opened inside another one; pass its handle on instead.');
    const current: OpenTransaction = { open: true };
    try {
      return await this.storage.run(current, fn);
    } finally {
      // Work the body started and left running (a timer, a promise not awaited) is outside from now on.
      current.open = false;
    }
  }

  /** True while the calling async context is inside an open transaction (always false unchecked). */
  get inside(): boolean {
    return this.storage?.getStore()?.open === true;
  }

  /** The query logger of the read handle: refuses its queries inside an open transaction (none unchecked). */
  guard(): Logger | undefined {
    if (!this.storage) return undefined;
    return {
      logQuery: (query) => {
        if (this.inside) throw new QueryOutsideTransaction(query);
      },
    };
  }
}
