/*
 * Which zone a cluster is drawn in, the same on the screen and in the console's Canvas tab, and the
 * same zone the server keeps linked (docs/realtime.md#what-a-document-holds): two facilitators
 * dropping one cluster into two zones at once leave it linked by both until the server's repair
 * arrives, and every screen must show it where the repair will leave it, not jump there after.
 */
import type { Placement, Zone } from 'workshop-sdk/canvas';

const holds = (zone: Zone, x: number, y: number) =>
  x >= zone.x && x < zone.x + zone.cols && y >= zone.y && y < zone.y + zone.rows;

/** Smallest area first, then top to bottom, left to right, then by id. */
const smallestFirst = ([aId, a]: [string, Zone], [bId, b]: [string, Zone]) =>
  a.cols * a.rows - b.cols * b.rows || a.y - b.y || a.x - b.x || (aId < bId ? -1 : aId > bId ? 1 : 0);

/** The smallest zone holding the point (grid units), or null. */
export function zoneAt(zones: Record<string, Zone>, x: number, y: number): string | null {
  const holding = Object.entries(zones).filter(([, zone]) => holds(zone, x, y));
  return holding.sort(smallestFirst)[0]?.[0] ?? null;
}

/**
 * The zone a cluster belongs in: the one linked to it; of several linked (concurrent drops), the
 * smallest holding the cluster's point, else the smallest id; with none linked, the smallest zone
 * holding the point; else none.
 */
export function zoneOfCluster(
  zones: Record<string, Zone>,
  clusterId: string,
  placement: Placement | undefined,
): string | null {
  const linked = Object.entries(zones).filter(([, zone]) => zone.cluster_id === clusterId);
  const point = placement && placement.x !== null && placement.y !== null ? placement : null;
  if (linked.length === 1) return linked[0]![0];
  if (linked.length > 1) {
    const holding = point ? linked.filter(([, zone]) => holds(zone, point.x!, point.y!)).sort(smallestFirst) : [];
    return holding[0]?.[0] ?? linked.map(([id]) => id).sort()[0]!;
  }
  return point ? zoneAt(zones, point.x!, point.y!) : null;
}
