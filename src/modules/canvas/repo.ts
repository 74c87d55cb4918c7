import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { canvases, zones } from '../../db/schema/index';
import type { CanvasRow, ZoneRow } from './schemas';

// Every screen showing a canvas reads these, so they are prepared once per connection. With
// better-sqlite3 they run on the same connection, so inside a write they see its changes.
const queries = preparedPerDb((db: Db) => ({
  canvasOf: db.select().from(canvases).where(eq(canvases.workshopId, sql.placeholder('workshopId'))).prepare(),
  zonesOf: db
    .select()
    .from(zones)
    .where(eq(zones.canvasId, sql.placeholder('canvasId')))
    .orderBy(asc(zones.position), asc(zones.id))
    .prepare(),
  zone: db.select().from(zones).where(eq(zones.id, sql.placeholder('id'))).prepare(),
}));

/** The workshop's canvas, if it has one. */
export function canvasOf(db: Db, workshopId: string): CanvasRow | undefined {
  return queries(db).canvasOf.get({ workshopId });
}

/** The SQL copy of a canvas's zones, in the order they were given. */
export function zoneRowsOf(db: Db, canvasId: string): ZoneRow[] {
  return queries(db).zonesOf.all({ canvasId });
}

export function zoneRow(db: Db, id: string): ZoneRow | undefined {
  return queries(db).zone.get({ id });
}
