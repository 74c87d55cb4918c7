import type Database from 'better-sqlite3';
import type { LayoutCopy, ZoneCopy, ZoneState } from '../../collab/types';

/** The zones side of the documents' SQL copy (`LayoutCopy`). */
export function zoneCopy(sqlite: Database.Database): Pick<LayoutCopy, 'zones' | 'zone' | 'writeZone'> {
  const q = {
    zones: sqlite.prepare<[string], ZoneCopy>('SELECT id, name, x, y, rows, cols, cluster_id FROM zones WHERE workshop_id = ?'),
    zone: sqlite.prepare<[string, string], ZoneCopy>('SELECT id, name, x, y, rows, cols, cluster_id FROM zones WHERE id = ? AND workshop_id = ?'),
    writeZone: sqlite.prepare<[string, number, number, number, number, string | null, string, string, string]>(
      `UPDATE zones SET name = ?, x = ?, y = ?, rows = ?, cols = ?, cluster_id = ?, updated_at = ?
         WHERE id = ? AND workshop_id = ?`,
    ),
  };
  return {
    zones: (workshopId) => q.zones.all(workshopId),
    zone: (workshopId, zoneId) => q.zone.get(zoneId, workshopId),
    writeZone(workshopId: string, zoneId: string, z: ZoneState) {
      q.writeZone.run(z.name, z.x, z.y, z.rows, z.cols, z.cluster_id, new Date().toISOString(), zoneId, workshopId);
    },
  };
}
