import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { vi } from 'vitest';
import { testStore } from './store';

/*
 * What the service sends to its store, seen at the driver (the server runs in the test's process):
 * every statement on every connection, prepared or built, BEGIN and COMMIT included.
 */

type Run = (this: unknown, ...args: unknown[]) => unknown;

/** A statement the store ran: its SQL, and the connection it ran on. */
export interface SeenStatement {
  sql: string;
  connection: object;
}

/** A statement as the driver got it (PostgreSQL: a client's query or its config; SQLite: a prepared statement). */
function statementOf(self: unknown, args: unknown[]): SeenStatement {
  if (testStore === 'postgres') {
    const query = args[0];
    return {
      sql: typeof query === 'string' ? query : String((query as { text?: unknown }).text),
      connection: self as object,
    };
  }
  const statement = self as BetterSqlite3.Statement;
  return { sql: statement.source, connection: statement.database };
}

/**
 * Calls `seen` with each statement the driver runs, and lets it run, or fail with the error
 * `seen` answers; until `stop`.
 */
function interceptStatements(seen: (statement: SeenStatement) => Error | undefined): { stop(): void } {
  const spies =
    testStore === 'postgres'
      ? [wrap(pg.Client.prototype as unknown as Record<string, Run>, 'query', seen, true)]
      : (() => {
          const probe = new BetterSqlite3(':memory:');
          const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, Run>;
          probe.close();
          return (['run', 'get', 'all', 'iterate'] as const).map((method) => wrap(statement, method, seen, false));
        })();
  return {
    stop() {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

function wrap(
  target: Record<string, Run>,
  method: string,
  seen: (statement: SeenStatement) => Error | undefined,
  async: boolean,
) {
  const original = target[method]!;
  return vi.spyOn(target, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
    const failure = seen(statementOf(this, args));
    if (failure) {
      if (async) return Promise.reject(failure);
      throw failure;
    }
    return original.apply(this, args);
  });
}

/** Records every statement the store runs from now until `stop`, which answers them. */
export function recordStatements(): { stop(): SeenStatement[] } {
  const statements: SeenStatement[] = [];
  const interception = interceptStatements((statement) => {
    statements.push(statement);
    return undefined;
  });
  return {
    stop() {
      interception.stop();
      return statements;
    },
  };
}

/**
 * The store's answer to its next statement whose SQL matches `matching`: `error`, as if the database
 * had failed it (the statement does not run). Until `stop`; answers whether it failed one.
 */
export function failNextStatement(matching: RegExp, error: Error): { stop(): boolean } {
  let failed = false;
  const interception = interceptStatements(({ sql }) => {
    if (failed || !matching.test(sql)) return undefined;
    failed = true;
    return error;
  });
  return {
    stop() {
      interception.stop();
      return failed;
    },
  };
}

/**
 * The statements of the write transactions among `statements`, each from its BEGIN to its COMMIT
 * or ROLLBACK (both left out), in the order they began.
 */
export function transactionsIn(statements: readonly SeenStatement[]): string[][] {
  const open = new Map<object, string[]>();
  const transactions: string[][] = [];
  for (const { sql, connection } of statements) {
    const body = open.get(connection);
    if (/^BEGIN( IMMEDIATE)?$/.test(sql)) {
      const started: string[] = [];
      open.set(connection, started);
      transactions.push(started);
    } else if (body && /^(COMMIT|ROLLBACK)$/.test(sql)) {
      open.delete(connection);
    } else if (body) {
      body.push(sql);
    }
  }
  return transactions;
}

/** An error the store raises when it is busy or away (a lock not had in time): the service answers 503. */
export function storeBusyError(): Error {
  return testStore === 'postgres'
    ? Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' })
    : Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
}
