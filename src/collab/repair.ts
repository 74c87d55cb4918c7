import type { Db } from '../db/database';
import { may } from '../modules/access/rules';
import type { WorkshopAccess } from '../domain/permissions';
import type { Captured, WorkshopDocument } from './document';
import { cleanPlacement, cleanZone, isCleanPlacement, isCleanZone, orderStack } from './layout';
import type { CardCopy, LayoutCopy, ZoneCopy } from './types';
import { surplusLinks, type CardPlacement, type ZoneState } from '../domain/canvas';

/*
 * A Yjs update cannot be refused once applied (the client already has it, and later updates
 * build on it), so the server answers what a client may not write with a repair of its own:
 * an update that puts the value back, applied after the client's. Both are stored and relayed
 * together, so other clients never see the refused value.
 *
 * Who may write what through the document (the same rules as REST, asked of `may`):
 * - a card's placement (`position`, `x`, `y`): whoever may edit the card, i.e. facilitators, and
 *   participants as the current step's `allow_edit` says (`all`, `their` own cards, or `none`);
 * - zones: facilitators only (canvas writes are facilitator-only);
 * - nothing in an archived workshop.
 * Entries for cards or zones SQL does not know are removed; entries cannot be deleted by clients
 * (cards and zones are deleted through REST); values of the wrong shape are put back.
 *
 * And one rule of the document as a whole: a cluster is linked by at most one zone. Two updates
 * made at the same moment (two facilitators dropping one cluster into two zones, each letting go
 * of the links it saw) can leave two zones naming it once merged; the storing instance, caught up
 * with everything stored before under the workshop's row, sees that state first, and its repair
 * keeps one (`surplusLinks`). Every copy applies the same stored updates, so all end alike.
 */

const placementOf = (card: CardCopy): CardPlacement => ({ position: card.position, x: card.x, y: card.y });
const zoneOf = ({ name, x, y, rows, cols, cluster_id }: ZoneCopy): ZoneState => ({
  name,
  x,
  y,
  rows,
  cols,
  cluster_id,
});

/**
 * What the repair of a client's update needs from SQL, read (in the write storing it) before the
 * document is touched, so the repair itself is one synchronous Yjs transaction: the cards and zones
 * the update touched, the stacks whose order it may have changed, and the clusters zones now name.
 */
export interface LayoutFacts {
  cards: ReadonlyMap<string, CardCopy>;
  stacks: ReadonlyMap<string | null, readonly CardCopy[]>;
  zones: ReadonlyMap<string, ZoneCopy>;
  clusters: ReadonlySet<string>;
}

export async function readLayoutFacts(
  tx: Db,
  layout: LayoutCopy,
  entry: WorkshopDocument,
  applied: Captured,
): Promise<LayoutFacts> {
  const workshopId = entry.workshopId;
  const cards = new Map<string, CardCopy>();
  const stacks = new Map<string | null, CardCopy[]>();
  for (const [cardId, old] of applied.cards) {
    const card = await layout.card(tx, workshopId, cardId);
    if (!card) continue;
    cards.set(cardId, card);
    const before = cleanPlacement(old) ?? placementOf(card);
    const asked = cleanPlacement(entry.cards.get(cardId));
    if (asked && asked.position !== before.position && !stacks.has(card.parentId))
      stacks.set(card.parentId, await layout.stack(tx, workshopId, card.parentId));
  }
  const zones = new Map<string, ZoneCopy>();
  const clusters = new Set<string>();
  for (const zoneId of applied.zones.keys()) {
    const zone = await layout.zone(tx, workshopId, zoneId);
    if (!zone) continue;
    zones.set(zoneId, zone);
    const clusterId = cleanZone(entry.zoneMap.get(zoneId))?.cluster_id;
    if (clusterId && !clusters.has(clusterId) && (await layout.isCluster(tx, workshopId, clusterId)))
      clusters.add(clusterId);
  }
  return { cards, stacks, zones, clusters };
}

/** Repairs what a client's update changed, from `facts` read before; runs inside the write that stores it. */
export function repairClientChange(
  entry: WorkshopDocument,
  facts: LayoutFacts,
  access: WorkshopAccess,
  applied: Captured,
): void {
  const moved = new Map<string | null, Map<string, number>>();

  for (const [cardId, old] of applied.cards) {
    const raw = entry.cards.get(cardId);
    const card = facts.cards.get(cardId);
    if (!card) {
      if (raw !== undefined) entry.cards.delete(cardId);
      continue;
    }
    const before = cleanPlacement(old) ?? placementOf(card);
    const mayMove = may(access, { edit_card: { authorId: card.userId } });
    const after = (mayMove ? cleanPlacement(raw) : null) ?? before;
    if (!isCleanPlacement(raw, after)) entry.cards.set(cardId, after);
    if (after.position !== before.position) {
      const stack = moved.get(card.parentId) ?? new Map<string, number>();
      stack.set(cardId, before.position);
      moved.set(card.parentId, stack);
    }
  }
  for (const [parentId, previous] of moved) normalizeStack(entry, facts.stacks.get(parentId) ?? [], previous);

  if (applied.zones.size === 0) return;
  const mayEditZones = may(access, 'facilitate');
  const linkedNow = new Set<string>();
  for (const [zoneId, old] of applied.zones) {
    const raw = entry.zoneMap.get(zoneId);
    const zone = facts.zones.get(zoneId);
    if (!zone) {
      if (raw !== undefined) entry.zoneMap.delete(zoneId);
      continue;
    }
    const before = cleanZone(old) ?? zoneOf(zone);
    let after = (mayEditZones ? cleanZone(raw) : null) ?? before;
    if (after.cluster_id !== null && after.cluster_id !== before.cluster_id && !facts.clusters.has(after.cluster_id))
      after = before;
    if (!isCleanZone(raw, after)) entry.zoneMap.set(zoneId, after);
    if (after.cluster_id !== null && after.cluster_id !== before.cluster_id) linkedNow.add(zoneId);
  }
  keepOneLinkPerCluster(entry, linkedNow);
}

/**
 * Unlinks the zones that make a cluster linked by more than one (`surplusLinks`: the zone holding
 * the cluster's point keeps it, else one `linkedNow`, else the smallest id). A document with one
 * link per cluster is left as it is, so a repair of a repair changes nothing.
 */
function keepOneLinkPerCluster(entry: WorkshopDocument, linkedNow?: ReadonlySet<string>): void {
  const zones = entry.zones();
  for (const zoneId of surplusLinks(zones, (clusterId) => entry.placement(clusterId), linkedNow))
    entry.zoneMap.set(zoneId, { ...zones.get(zoneId)!, cluster_id: null });
}

/**
 * Keeps one stack's positions at 0..n-1 after some of its cards were given new positions
 * (`previous` holds their positions before). Cards SQL knows in the stack but the document lacks
 * are put in with their SQL values. `current` reads a card's placement in the document.
 */
function normalizeStack(
  entry: WorkshopDocument,
  stack: readonly CardCopy[],
  previous: ReadonlyMap<string, number>,
  current: (cardId: string) => CardPlacement | null = (cardId) => entry.placement(cardId),
): Map<string, CardPlacement> {
  const now = new Map(stack.map((card) => [card.id, current(card.id) ?? placementOf(card)]));
  const members = stack.map((card) => {
    const position = now.get(card.id)!.position;
    return { id: card.id, position, previous: previous.get(card.id) ?? position };
  });
  orderStack(members).forEach((id, index) => {
    const placement = now.get(id)!;
    if (placement.position === index && current(id)) return;
    const fixed = { ...placement, position: index };
    entry.cards.set(id, fixed);
    now.set(id, fixed);
  });
  return now;
}

/**
 * Brings a freshly loaded document in line with SQL: cards and zones the document lacks are added
 * with their SQL values (a document created for a workshop that already had cards, or a REST write
 * whose push was cut short), entries SQL no longer has are removed, wrong shapes repaired, stacks
 * numbered 0..n-1, zone links to clusters that are gone cleared, and a cluster left linked by
 * several zones (stored before that was repaired) kept by one. Where both hold a value, the
 * document's wins: it is the truth, SQL the copy. Returns every card's placement afterwards.
 */
export function reconcileWithSql(
  entry: WorkshopDocument,
  cards: readonly CardCopy[],
  zones: readonly ZoneCopy[],
): Map<string, CardPlacement> {
  const known = new Set(cards.map((card) => card.id));
  for (const cardId of [...entry.cards.keys()]) if (!known.has(cardId)) entry.cards.delete(cardId);
  const placements = new Map<string, CardPlacement>();
  const stacks = new Map<string | null, CardCopy[]>();
  for (const card of cards) {
    const raw = entry.cards.get(card.id);
    const clean = cleanPlacement(raw);
    if (clean && isCleanPlacement(raw, clean)) placements.set(card.id, clean);
    const stack = stacks.get(card.parentId) ?? [];
    stack.push(card);
    stacks.set(card.parentId, stack);
  }
  for (const stack of stacks.values()) {
    for (const [id, placement] of normalizeStack(entry, stack, new Map(), (cardId) => placements.get(cardId) ?? null))
      placements.set(id, placement);
  }

  const clusters = new Set(stacks.get(null)?.map((card) => card.id) ?? []);
  const knownZones = new Set(zones.map((zone) => zone.id));
  for (const zoneId of [...entry.zoneMap.keys()]) if (!knownZones.has(zoneId)) entry.zoneMap.delete(zoneId);
  for (const zone of zones) {
    const raw = entry.zoneMap.get(zone.id);
    let clean = cleanZone(raw) ?? zoneOf(zone);
    if (clean.cluster_id !== null && !clusters.has(clean.cluster_id)) clean = { ...clean, cluster_id: null };
    if (!isCleanZone(raw, clean)) entry.zoneMap.set(zone.id, clean);
  }
  keepOneLinkPerCluster(entry);
  return placements;
}
