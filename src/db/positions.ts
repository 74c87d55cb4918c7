import { asc, eq, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { DbOrTx } from './client';

type PositionedTable = SQLiteTable & { id: SQLiteColumn; position: SQLiteColumn };

/**
 * Keeps the positions of one list (the steps of a workshop, the ideas of a cluster, …) at 0..n-1.
 * `remove` takes an id out of the list, `insert` puts one in at `position` (clamped; the end when
 * omitted). Moving within the list is remove + insert of the same id. Only rows whose position
 * changes are written. The inserted id may not exist yet: the caller then inserts it at the
 * returned position. Call inside the write transaction.
 */
export function arrange(
  tx: DbOrTx,
  table: PositionedTable,
  scope: SQL | undefined,
  change: { insert?: { id: string; position?: number | undefined }; remove?: string },
): number {
  const rows = tx
    .select({ id: table.id, position: table.position })
    .from(table as SQLiteTable)
    .where(scope)
    .orderBy(asc(table.position), asc(table.id))
    .all() as Array<{ id: string; position: number }>;
  const current = new Map(rows.map((r) => [r.id, r.position]));
  const ids = rows.map((r) => r.id).filter((id) => id !== change.remove && id !== change.insert?.id);
  let placed = -1;
  if (change.insert) {
    const wanted = change.insert.position ?? ids.length;
    placed = Math.max(0, Math.min(ids.length, wanted));
    ids.splice(placed, 0, change.insert.id);
  }
  ids.forEach((id, index) => {
    const before = current.get(id);
    if (before !== undefined && before !== index) {
      tx.update(table).set({ position: index } as never).where(eq(table.id, id)).run();
    }
  });
  return placed;
}
