import { asc, eq, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './database';

type PositionedTable = SQLiteTable & { id: SQLiteColumn; position: SQLiteColumn };

/** A list change: `remove` takes an id out, `insert` puts one in at `position` (clamped; the end when omitted). */
export interface ListChange {
  insert?: { id: string; position?: number | undefined };
  remove?: string;
}

/**
 * Applies a change to a list of ids in order, in place; returns the index the inserted id landed
 * at (-1 without insert). Moving within the list is remove + insert of the same id.
 */
export function reorder(ids: string[], change: ListChange): number {
  for (const id of [change.remove, change.insert?.id]) {
    const index = id === undefined ? -1 : ids.indexOf(id);
    if (index >= 0) ids.splice(index, 1);
  }
  if (!change.insert) return -1;
  const placed = Math.max(0, Math.min(ids.length, change.insert.position ?? ids.length));
  ids.splice(placed, 0, change.insert.id);
  return placed;
}

/**
 * Keeps the positions of one list (the steps of a workshop, the sections of a workshop, …) at
 * 0..n-1 (see `reorder`). Only rows whose position changes are written. The inserted id may not
 * exist yet: the caller then inserts it at the returned position. Call inside the write
 * transaction. Card stacks do not use it: card positions are written through the workshop's
 * document (`cards/placements.ts`).
 */
export async function arrange(
  tx: Db,
  table: PositionedTable,
  scope: SQL | undefined,
  change: ListChange,
): Promise<number> {
  const rows = (await tx
    .select({ id: table.id, position: table.position })
    .from(table as SQLiteTable)
    .where(scope)
    .orderBy(asc(table.position), asc(table.id))) as Array<{ id: string; position: number }>;
  const current = new Map(rows.map((r) => [r.id, r.position]));
  const ids = rows.map((r) => r.id);
  const placed = reorder(ids, change);
  for (const [index, id] of ids.entries()) {
    const before = current.get(id);
    if (before !== undefined && before !== index) {
      await tx
        .update(table)
        .set({ position: index } as never)
        .where(eq(table.id, id));
    }
  }
  return placed;
}
