/*
 * Where the canvas tab draws each cluster, and what a drop writes, apart from the DOM. A cluster
 * belongs in a zone by the same rule as the screen's (web/shared/zones.ts).
 */
import type { WorkshopCanvas, Zone } from 'workshop-sdk/canvas';
import { zoneAt } from '../../../shared/zones';

export type Zones = Record<string, Zone>;

/** The zones in the screen's order (top to bottom, then left to right), with their ids. */
export function zoneList(zones: Zones): Array<[string, Zone]> {
  return Object.entries(zones).sort(([, a], [, b]) => a.y - b.y || a.x - b.x);
}

/**
 * Drops a cluster at a point of the canvas (grid units): its placement takes the point, the zone
 * under it links to it, and any other zone linked to it lets go. One Yjs transaction, so the
 * server stores and logs it as one move.
 */
export function dropCluster(canvas: WorkshopCanvas, clusterId: string, x: number, y: number): string | null {
  const zones = canvas.zones();
  const target = zoneAt(zones, x, y);
  canvas.doc.transact(() => {
    canvas.moveCard(clusterId, { x, y });
    for (const [id, zone] of Object.entries(zones))
      if (zone.cluster_id === clusterId && id !== target) canvas.updateZone(id, { cluster_id: null });
    if (target !== null && zones[target]!.cluster_id !== clusterId)
      canvas.updateZone(target, { cluster_id: clusterId });
  });
  return target;
}

/** Keeps a point inside a `cols` × `rows` grid. */
export function clamp(value: number, size: number): number {
  return Math.min(Math.max(value, 0), Math.max(size - 0.5, 0));
}
