import type { WorkshopDocument } from './document';
import { cleanPlacement, cleanZone, isCleanPlacement, isCleanZone } from './layout';
import type { PlacementChange } from './types';
import type { ZoneState } from '../domain/canvas';

/*
 * What the server's own changes do to a document's maps (run inside `serverChange`). Values
 * already as asked are left alone, so a change that changes nothing stores nothing.
 */

/** Removes deleted cards and merges new placements (a missing member keeps the document's value). */
export function applyPlacements(entry: WorkshopDocument, change: PlacementChange): void {
  for (const cardId of change.removed ?? []) if (entry.cards.has(cardId)) entry.cards.delete(cardId);
  for (const [cardId, patch] of Object.entries(change.placements)) {
    const raw = entry.cards.get(cardId);
    const current = cleanPlacement(raw) ?? { position: 0, x: null, y: null };
    const next = cleanPlacement({
      position: patch.position ?? current.position,
      x: patch.x !== undefined ? patch.x : current.x,
      y: patch.y !== undefined ? patch.y : current.y,
    });
    if (next && !isCleanPlacement(raw, next)) entry.cards.set(cardId, next);
  }
}

/** Merges zones; `null` removes one. */
export function applyZones(entry: WorkshopDocument, zones: Record<string, ZoneState | null>): void {
  for (const [zoneId, zone] of Object.entries(zones)) {
    const raw = entry.zoneMap.get(zoneId);
    if (zone === null) {
      if (raw !== undefined) entry.zoneMap.delete(zoneId);
      continue;
    }
    const clean = cleanZone(zone);
    if (clean && !isCleanZone(raw, clean)) entry.zoneMap.set(zoneId, clean);
  }
}
