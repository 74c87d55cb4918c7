import { and, eq, sql } from 'drizzle-orm';
import type { LayoutCopy } from '../../collab/types';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';

const statements = preparedPerDb((db: Db) => {
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

/** The zones side of the documents' SQL copy (`LayoutCopy`). */
export function zoneCopy(): Pick<LayoutCopy, 'zones' | 'zone' | 'writeZone'> {
  return {
    zones: (db, workshopId) => statements(db).zones.execute({ workshopId }),
    async zone(db, workshopId, zoneId) {
      const [row] = await statements(db).zone.execute({ zoneId, workshopId });
      return row;
    },
    async writeZone(tx, workshopId, zoneId, z) {
      await statements(tx).writeZone.execute({
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
    },
  };
}
