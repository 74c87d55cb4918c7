import type { CollabService, OpenWrite } from '../../collab/types';
import type { ZoneState } from '../../domain/canvas';
import type { WriteDeps } from '../../db/write';
import { diffFields } from '../../domain/events';
import { canvasOf, zoneRowsOf } from './repo';
import { toZone, zoneStateOf, type ZoneRow } from './schemas';
import type { ZoneOutput } from '../../domain/canvas';

/** The canvas module writes SQL through `write`, and zone geometry through the workshop's document. */
export interface CanvasDeps extends WriteDeps {
  collab: Pick<CollabService, 'zones' | 'zonesIfLoaded' | 'placeZones'>;
}

/** The workshop and who changes it (named in the log). */
interface Ref {
  workshopId: string;
  caller: { id: string };
}

export interface CurrentZone {
  id: string;
  state: ZoneState;
}

/**
 * A canvas's zones with the values the document holds, for a write (`write`: its transaction and
 * hooks; the document is loaded). SQL says which zones exist (and their order); the document,
 * which never holds zones SQL lacks, gives their values. A document loaded inside the write is
 * reconciled with SQL there (`openInWrite`), before this reads it.
 */
export async function currentZones(
  deps: Pick<CanvasDeps, 'collab'>,
  write: OpenWrite,
  workshopId: string,
  rows: readonly ZoneRow[],
): Promise<CurrentZone[]> {
  if (rows.length === 0) return [];
  return withValues(rows, await deps.collab.zones(write, workshopId));
}

/**
 * The same for a REST read, which loads no document: when this instance does not hold it loaded,
 * the SQL rows give the values, and they are the document's (every stored document update writes
 * its SQL copy in the same transaction).
 */
export async function zonesForRead(
  deps: Pick<CanvasDeps, 'collab'>,
  workshopId: string,
  rows: readonly ZoneRow[],
): Promise<CurrentZone[]> {
  if (rows.length === 0) return [];
  return withValues(rows, (await deps.collab.zonesIfLoaded(workshopId)) ?? new Map());
}

function withValues(rows: readonly ZoneRow[], document: ReadonlyMap<string, ZoneState>): CurrentZone[] {
  return rows.map((row) => ({ id: row.id, state: document.get(row.id) ?? zoneStateOf(row) }));
}

export function zoneOutputs(current: readonly CurrentZone[]): ZoneOutput[] {
  return current.map(({ id, state }) => toZone(id, state));
}

/**
 * Sets zones' cluster links inside a write, keeping each cluster linked by at most one zone of the
 * canvas (`zones`, all of them, as the document holds them): a zone asked to link a cluster takes
 * the link from any other zone holding it, and of several asked to link one cluster the first
 * asked keeps it. A REST write is one caller's intent, decided under the workshop's row, so what
 * it asks wins; the document's repair of concurrent client changes, which have no one intent,
 * keeps the zone holding the cluster's point instead (`surplusLinks`). Each change is logged as
 * `updateZone`, and the document takes the new values in the same transaction, writing their SQL
 * copy with them. Zones already linked as asked are left alone.
 */
export async function setZoneLinks(
  deps: Pick<CanvasDeps, 'collab'>,
  write: OpenWrite,
  ref: Ref,
  zones: readonly CurrentZone[],
  asked: ReadonlyArray<{ id: string; clusterId: string | null }>,
): Promise<void> {
  const links = new Map(zones.map(({ id, state }) => [id, state.cluster_id]));
  const taken = new Set<string>();
  for (const { id, clusterId } of asked) {
    const link = clusterId !== null && taken.has(clusterId) ? null : clusterId;
    if (link !== null) {
      taken.add(link);
      for (const [other, linked] of links) if (linked === link) links.set(other, null);
    }
    links.set(id, link);
  }
  const patch: Record<string, ZoneState> = {};
  for (const { id, state } of zones) {
    const clusterId = links.get(id)!;
    if (state.cluster_id === clusterId) continue;
    const after: ZoneState = { ...state, cluster_id: clusterId };
    const [before, zone] = [toZone(id, state), toZone(id, after)];
    write.changes.record({
      workshopId: ref.workshopId,
      action: 'updateZone',
      userId: ref.caller.id,
      change: { zone, changes: diffFields(before, zone, ['cluster_id']) },
    });
    patch[id] = after;
  }
  await deps.collab.placeZones(write, ref.workshopId, patch);
}

/**
 * Zones follow the clusters they link to when those go away: to `to` (say, the cluster a merge
 * made; the caller makes sure it is a cluster of the workshop) or to no cluster. A cluster being
 * linked by one zone at most, when several merged clusters had zones, the zone of the first one
 * listed in `from` keeps the link and the others let go. The cards module calls this inside the
 * write that deletes, merges or replaces clusters. A workshop without a canvas costs one indexed
 * lookup; its document is not loaded.
 */
export async function relinkZones(
  deps: Pick<CanvasDeps, 'collab'>,
  write: OpenWrite,
  ref: Ref & { from: readonly string[]; to?: string | null },
): Promise<void> {
  const canvas = ref.from.length > 0 ? await canvasOf(write.tx, ref.workshopId) : undefined;
  if (!canvas) return;
  const order = new Map(ref.from.map((clusterId, index) => [clusterId, index]));
  const rank = ({ state }: CurrentZone) => (state.cluster_id === null ? undefined : order.get(state.cluster_id));
  const zones = await currentZones(deps, write, ref.workshopId, await zoneRowsOf(write.tx, canvas.id));
  const asked = zones
    .filter((zone) => rank(zone) !== undefined)
    .sort((a, b) => rank(a)! - rank(b)!)
    .map(({ id }) => ({ id, clusterId: ref.to ?? null }));
  await setZoneLinks(deps, write, ref, zones, asked);
}
