import type { AuthorVisibility } from '../domain/permissions';
import type { PlacementOutput } from '../domain/events';
import { diffFields } from '../domain/events';
import type { ChangeRecorder } from '../domain/recorder';
import type { Captured, WorkshopDocument } from './document';
import { cleanPlacement, cleanZone, samePlacement, sameZone } from './layout';

const ZONE_FIELDS = ['name', 'x', 'y', 'rows', 'cols', 'cluster_id'] as const;

/*
 * What a change to the layout leaves in the workshop's log, so that screens not holding the
 * document (Socket.IO clients, the event list, cached card lists) learn of it. `known` holds the
 * values those screens knew, by key:
 * - one `moveCards` with the placements of every card whose placement changed (for a client's
 *   update, after repairs: the cards it moved and the siblings renumbered with them);
 * - one `updateZone` per zone whose values changed.
 * Nothing when nothing changed. A client's stored update is logged under its user; reconciling
 * on load, which puts the document's values into a SQL copy that had parted from them, under no
 * user. REST writes log their own `updateCard`, `updateZone`, …. `moverHidden`: the user moved a
 * card they wrote anonymously, at that level: the move names its mover as the card its author.
 */
export function recordLayoutChange(
  changes: Pick<ChangeRecorder, 'record'>,
  entry: WorkshopDocument,
  userId: string | null,
  known: Pick<Captured, 'cards' | 'zones'>,
  moverHidden: AuthorVisibility = 'shown',
): void {
  const workshopId = entry.workshopId;
  const placements: Record<string, PlacementOutput> = {};
  for (const [cardId, old] of known.cards) {
    const after = entry.placement(cardId);
    const before = cleanPlacement(old);
    if (after && !(before && samePlacement(before, after))) placements[cardId] = after;
  }
  if (Object.keys(placements).length > 0) {
    const mover =
      userId !== null && moverHidden !== 'shown' ? { mover: { user_id: userId, author_visibility: moverHidden } } : {};
    changes.record({ workshopId, action: 'moveCards', userId, change: { placements, ...mover } });
  }

  for (const [zoneId, old] of known.zones) {
    const after = entry.zone(zoneId);
    const before = cleanZone(old);
    if (!after || !before || sameZone(before, after)) continue;
    const zone = { id: zoneId, ...after };
    changes.record({
      workshopId,
      action: 'updateZone',
      userId,
      change: { zone, changes: diffFields({ id: zoneId, ...before }, zone, ZONE_FIELDS) },
    });
  }
}
