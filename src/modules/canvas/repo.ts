import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import type { CanvasRow, ZoneRow } from './schemas';
import type { ZoneState } from '../../domain/canvas';

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

// The zones side of the documents' SQL copy (`zone-copy.ts`): read on each document load, written
// with every stored update that changes a zone.
const copyStatements = preparedPerDb((db: Db) => {
  const { zones } = tablesOf(db);
  const p = sql.placeholder;
  const copy = {
    id: zones.id,
    name: zones.name,
    x: zones.x,
    y: zones.y,
    rows: zones.rows,
    cols: zones.cols,
    cluster_id: zones.clusterId,
  };
  return {
    zones: named(
      db
        .select(copy)
        .from(zones)
        .where(eq(zones.workshopId, p('workshopId'))),
      'canvas_copy_zones',
    ),
    zone: named(
      db
        .select(copy)
        .from(zones)
        .where(and(eq(zones.id, p('zoneId')), eq(zones.workshopId, p('workshopId')))),
      'canvas_copy_zone',
    ),
    writeZone: named(
      db
        .update(zones)
        .set({
          name: sql`${p('name')}`,
          x: sql`${p('x')}`,
          y: sql`${p('y')}`,
          rows: sql`${p('rows')}`,
          cols: sql`${p('cols')}`,
          clusterId: sql`${p('clusterId')}`,
          updatedAt: sql`${p('now')}`,
        })
        .where(and(eq(zones.id, p('zoneId')), eq(zones.workshopId, p('workshopId')))),
      'canvas_copy_write_zone',
    ),
  };
});

/** The workshop's zones, as the copy holds them. */
export function copiedZones(db: Db, workshopId: string) {
  return copyStatements(db).zones.execute({ workshopId });
}

/** The zone, if it belongs to the workshop. */
export async function copiedZone(db: Db, workshopId: string, zoneId: string) {
  const [row] = await copyStatements(db).zone.execute({ zoneId, workshopId });
  return row;
}

/** Writes the zone's values as the document holds them. */
export async function writeZoneCopy(tx: Db, workshopId: string, zoneId: string, z: ZoneState): Promise<void> {
  await copyStatements(tx).writeZone.execute({
    name: z.name,
    x: z.x,
    y: z.y,
    rows: z.rows,
    cols: z.cols,
    clusterId: z.cluster_id,
    now: new Date().toISOString(),
    zoneId,
    workshopId,
  });
}
