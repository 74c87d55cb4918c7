import * as v from 'valibot';

/*
 * A workshop's canvas and its zones, and the places the workshop's Yjs document holds for cards and
 * zones (docs/architecture.md#layers): the document is the truth for those values, SQL keeps a copy.
 */

export interface CardPlacement {
  position: number;
  x: number | null;
  y: number | null;
}

export interface ZoneState {
  name: string;
  x: number;
  y: number;
  rows: number;
  cols: number;
  cluster_id: string | null;
}

export const ZoneOutput = v.object({
  id: v.string(),
  name: v.string(),
  x: v.number(),
  y: v.number(),
  rows: v.number(),
  cols: v.number(),
  /** The linked cluster, or null. */
  cluster_id: v.nullable(v.string()),
});
export type ZoneOutput = v.InferOutput<typeof ZoneOutput>;

export const CanvasOutput = v.object({
  id: v.string(),
  name: v.string(),
  /** `id` is the predefined canvas the workshop canvas was made from, or its own id. */
  background: v.object({ id: v.string(), cols: v.number(), rows: v.number() }),
  zones: v.array(ZoneOutput),
  image: v.nullable(v.object({ cols: v.number(), rows: v.number(), url: v.string() })),
});
export type CanvasOutput = v.InferOutput<typeof CanvasOutput>;

/**
 * Whether a zone holds a point of the canvas (grid units): its left and top edges are in, its right
 * and bottom edges out, as the screen and the console's Canvas tab draw it.
 */
export function zoneHolds(zone: ZoneState, x: number, y: number): boolean {
  return x >= zone.x && x < zone.x + zone.cols && y >= zone.y && y < zone.y + zone.rows;
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A cluster is linked by at most one zone. Where several zones name the same cluster (two
 * facilitators dropped it into two zones at the same moment, each letting go only of the links it
 * saw), these are the zones that must let go, all clusters together. The zone kept is:
 * 1. the smallest of them holding the cluster's point (`pointOf`, where the canvas placed it), so
 *    the link agrees with where the cluster is drawn: of two concurrent drops, the one whose
 *    placement the merge kept;
 * 2. else one the change being judged linked (`linkedNow`);
 * 3. else the smallest zone id.
 * Remaining ties go to the zone first in the screen's order (top to bottom, left to right), then to
 * the smaller id. The answer depends on the state given only, so every copy judging the same
 * state keeps the same zone, and a state with one link per cluster asks nothing.
 */
export function surplusLinks(
  zones: ReadonlyMap<string, ZoneState>,
  pointOf: (clusterId: string) => Pick<CardPlacement, 'x' | 'y'> | null,
  linkedNow: ReadonlySet<string> = new Set(),
): string[] {
  const linking = new Map<string, string[]>();
  for (const [zoneId, zone] of zones) {
    if (zone.cluster_id === null) continue;
    linking.set(zone.cluster_id, [...(linking.get(zone.cluster_id) ?? []), zoneId]);
  }
  const surplus: string[] = [];
  for (const [clusterId, zoneIds] of linking) {
    if (zoneIds.length < 2) continue;
    const ordered = zoneIds.sort(byId);
    const point = pointOf(clusterId);
    const { x, y } = point ?? { x: null, y: null };
    const holding =
      x === null || y === null
        ? []
        : ordered
            .map((zoneId) => [zoneId, zones.get(zoneId)!] as const)
            .filter(([, zone]) => zoneHolds(zone, x, y))
            .sort(([, a], [, b]) => a.cols * a.rows - b.cols * b.rows || a.y - b.y || a.x - b.x);
    const kept = holding[0]?.[0] ?? ordered.find((zoneId) => linkedNow.has(zoneId)) ?? ordered[0];
    surplus.push(...ordered.filter((zoneId) => zoneId !== kept));
  }
  return surplus;
}
