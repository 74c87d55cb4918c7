import type { PlacementOutput } from '../modules/events/changes';
import { diffFields, type ChangeRecorder } from '../modules/events/recorder';
import type { Captured, WorkshopDocument } from './document';
import { cleanPlacement, cleanZone, samePlacement, sameZone } from './layout';

const ZONE_FIELDS = ['name', 'x', 'y', 'rows', 'cols', 'cluster_id'] as const;

/*
 * What a client's stored update leaves in the workshop's log, so that screens not holding the
 * document (Socket.IO clients, the event list) learn of it:
 * - one `moveCards` with the placements, after repairs, of every card whose placement the update
 *   changed (the cards the client moved and the siblings renumbered with them);
 * - one `updateZone` per zone whose values changed (facilitators only may change zones).
 * Nothing when the repairs put everything back. Server changes (REST writes, reconciling) record
 * nothing here: the REST services log their own `updateCard`, `updateZone`, ….
 */
export function recordClientChange(changes: ChangeRecorder, entry: WorkshopDocument, userId: string, all: Captured): void {
  const workshopId = entry.workshopId;
  const placements: Record<string, PlacementOutput> = {};
  for (const [cardId, old] of all.cards) {
    const after = entry.placement(cardId);
    const before = cleanPlacement(old);
    if (after && !(before && samePlacement(before, after))) placements[cardId] = after;
  }
  if (Object.keys(placements).length > 0) changes.record({ workshopId, action: 'moveCards', userId, change: { placements } });

  for (const [zoneId, old] of all.zones) {
    const after = entry.zone(zoneId);
    const before = cleanZone(old);
    if (!after || !before || sameZone(before, after)) continue;
    const zone = { id: zoneId, ...after };
    changes.record({ workshopId, action: 'updateZone', userId, change: { zone, changes: diffFields({ id: zoneId, ...before }, zone, ZONE_FIELDS) } });
  }
}
