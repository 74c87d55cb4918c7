import { describe, expect, it } from 'vitest';
import { surplusLinks, type ZoneState } from '../src/domain/canvas';
import { zoneOfCluster } from '../web/shared/zones';

/*
 * The screen and the console draw a cluster linked by two zones (two drops at once, before the
 * server's repair arrives) where the repair will leave it; otherwise it jumps when the repair lands.
 */
const zone = (x: number, y: number, cols: number, rows: number, cluster_id: string | null = null): ZoneState => ({
  name: `${x},${y}`,
  x,
  y,
  cols,
  rows,
  cluster_id,
});

/** The zone of `zones` still linked to `clusterId` once the server's repair has run. */
function keptByServer(zones: Record<string, ZoneState>, clusterId: string, point: { x: number; y: number } | null) {
  const surplus = new Set(surplusLinks(new Map(Object.entries(zones)), () => point));
  return Object.entries(zones).find(([id, z]) => z.cluster_id === clusterId && !surplus.has(id))?.[0];
}

describe('a cluster two facilitators dropped into two zones at once', () => {
  const layouts: Array<[string, Record<string, ZoneState>]> = [
    ['side by side', { b: zone(0, 0, 4, 4, 'c'), a: zone(4, 0, 4, 4, 'c'), z: zone(0, 4, 8, 4) }],
    ['one inside the other', { outer: zone(0, 0, 8, 8, 'c'), inner: zone(2, 2, 2, 2, 'c') }],
    ['three at once', { m: zone(0, 0, 3, 3, 'c'), k: zone(3, 0, 3, 3, 'c'), d: zone(6, 0, 3, 3, 'c') }],
  ];
  const points = [null, { x: 0.5, y: 0.5 }, { x: 2.5, y: 2.5 }, { x: 4.5, y: 1 }, { x: 7, y: 1 }, { x: 20, y: 20 }];

  for (const [name, zones] of layouts)
    it(`is drawn in the zone the server keeps linked, not in another first (${name})`, () => {
      for (const point of points) {
        const placement = point ? { position: 0, ...point } : { position: 0, x: null, y: null };
        expect(zoneOfCluster(zones, 'c', placement), JSON.stringify(point)).toBe(keptByServer(zones, 'c', point));
      }
    });

  it('is drawn in its one linked zone, or in the smallest zone holding its point when none links it', () => {
    const zones = { big: zone(0, 0, 8, 8), small: zone(1, 1, 2, 2), other: zone(8, 0, 2, 2, 'c') };
    expect(zoneOfCluster(zones, 'c', { position: 0, x: 1.5, y: 1.5 })).toBe('other');
    expect(zoneOfCluster(zones, 'd', { position: 0, x: 1.5, y: 1.5 })).toBe('small');
    expect(zoneOfCluster(zones, 'd', { position: 0, x: 5, y: 5 })).toBe('big');
    expect(zoneOfCluster(zones, 'd', { position: 0, x: null, y: null })).toBeNull();
  });
});
