import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import type { CanvasRow, ZoneRow } from './schemas';

// Every screen showing a canvas reads these, so they are prepared once per connection. Inside a
// write, pass the transaction's handle so they see its changes.
const queries = preparedPerDb((db: Db) => {
  const { canvases, zones } = tablesOf(db);
  return {
    canvasOf: named(
      db
        .select()
        .from(canvases)
        .where(eq(canvases.workshopId, sql.placeholder('workshopId'))),
      'canvas_of',
    ),
    zonesOf: named(
      db
        .select()
        .from(zones)
        .where(eq(zones.canvasId, sql.placeholder('canvasId')))
        .orderBy(asc(zones.position), asc(zones.id)),
      'canvas_zones_of',
    ),
    zone: named(
      db
        .select()
        .from(zones)
        .where(eq(zones.id, sql.placeholder('id'))),
      'canvas_zone',
    ),
  };
});

/** The workshop's canvas, if it has one. */
export async function canvasOf(db: Db, workshopId: string): Promise<CanvasRow | undefined> {
  const [row] = await queries(db).canvasOf.execute({ workshopId });
  return row;
}

/** The SQL copy of a canvas's zones, in the order they were given. */
export function zoneRowsOf(db: Db, canvasId: string): Promise<ZoneRow[]> {
  return queries(db).zonesOf.execute({ canvasId });
}

export async function zoneRow(db: Db, id: string): Promise<ZoneRow | undefined> {
  const [row] = await queries(db).zone.execute({ id });
  return row;
}

/** Whether the card is a cluster of the workshop: what a zone may be linked to. */
export async function isClusterOf(db: Db, workshopId: string, cardId: string): Promise<boolean> {
  const { cards } = tablesOf(db);
  const [row] = await db
    .select({ id: cards.id })
    .from(cards)
    .where(and(eq(cards.id, cardId), eq(cards.workshopId, workshopId), eq(cards.type, 'cluster')));
  return row !== undefined;
}

export async function insertCanvas(tx: Db, values: Schema['canvases']['$inferInsert']): Promise<CanvasRow> {
  const { canvases } = tablesOf(tx);
  const [row] = await tx.insert(canvases).values(values).returning();
  return row!;
}

export async function insertZones(tx: Db, rows: Schema['zones']['$inferInsert'][]): Promise<void> {
  const { zones } = tablesOf(tx);
  if (rows.length > 0) await tx.insert(zones).values(rows);
}

/** Deletes the canvas; its zones go with it (foreign key cascade). */
export async function deleteCanvasRow(tx: Db, canvasId: string): Promise<void> {
  const { canvases } = tablesOf(tx);
  await tx.delete(canvases).where(eq(canvases.id, canvasId));
}
