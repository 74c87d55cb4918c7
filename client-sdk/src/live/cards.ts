import type { Card } from '../resources.js';

/*
 * The live state's cards as the REST list orders them (clusters by position, each followed by its
 * ideas by position), and the changes events make to that order.
 */

/** Cards in the REST list's order: clusters by position, each followed by its ideas by position. */
export function ordered(cards: Card[]): Card[] {
  const byPosition = (a: Card, b: Card) => a.position - b.position;
  const ideas = new Map<string, Card[]>();
  for (const card of cards) {
    if (card.parent === null) continue;
    const stack = ideas.get(card.parent);
    if (stack) stack.push(card);
    else ideas.set(card.parent, [card]);
  }
  const result: Card[] = [];
  for (const cluster of cards.filter((card) => card.parent === null).sort(byPosition)) {
    result.push(cluster, ...(ideas.get(cluster.id) ?? []).sort(byPosition));
  }
  return result;
}

/**
 * Puts a card at its position among its siblings, moving the siblings as the server does: those
 * after the place it left one down, those from the place it joined one up (events name only the
 * card that moved, not its siblings). Positions stay the server's, so a reader who sees part of a
 * stack (a private step) keeps the gaps of the cards they do not see.
 */
export function placed(cards: Card[], card: Card): Card[] {
  const index = cards.findIndex((c) => c.id === card.id);
  const previous = index >= 0 ? cards[index] : undefined;
  // The common changes touch one stack of an ordered list: an edit in place, or an idea joining a
  // cluster's stack. Done in one pass, they keep a live list of a thousand ideas cheap on a phone.
  if (previous && previous.parent === card.parent && previous.position === card.position) {
    const edited = cards.slice();
    edited[index] = card;
    return edited;
  }
  const at = Math.max(card.position, 0);
  if (!previous && card.parent !== null) {
    const withIdea = withNewIdea(cards, { ...card, position: at });
    if (withIdea) return withIdea;
  }
  const moved = cards.flatMap((c) => {
    if (c.id === card.id) return [];
    let position = c.position;
    if (previous && c.parent === previous.parent && position > previous.position) position -= 1;
    if (c.parent === card.parent && position >= at) position += 1;
    return [position === c.position ? c : { ...c, position }];
  });
  return ordered([...moved, { ...card, position: at }]);
}

/**
 * `cards` (ordered) with a new idea put into its cluster's stack before the first sibling at or
 * after its position, those siblings one up; null when its cluster is not in the list (`ordered`
 * leaves such an idea out).
 */
function withNewIdea(cards: Card[], idea: Card): Card[] | null {
  const cluster = cards.findIndex((c) => c.id === idea.parent);
  if (cluster < 0) return null;
  const result = cards.slice(0, cluster + 1);
  let next = cluster + 1;
  let inserted = false;
  for (; next < cards.length && cards[next]!.parent === idea.parent; next++) {
    const sibling = cards[next]!;
    if (sibling.position < idea.position) {
      result.push(sibling);
      continue;
    }
    if (!inserted) result.push(idea);
    inserted = true;
    result.push({ ...sibling, position: sibling.position + 1 });
  }
  if (!inserted) result.push(idea);
  for (; next < cards.length; next++) result.push(cards[next]!);
  return result;
}

/** The cards without those removed, each sibling after a removed one one down per removed card before it. */
export function without(cards: Card[], ids: Set<string>): Card[] {
  const removed = cards.filter((card) => ids.has(card.id));
  const left = cards.flatMap((card) => {
    if (ids.has(card.id)) return [];
    const before = removed.filter((gone) => gone.parent === card.parent && gone.position < card.position).length;
    return [before === 0 ? card : { ...card, position: card.position - before }];
  });
  return ordered(left);
}

/** Positions from a canvas move: the server's values for every card the move renumbered. */
export function moved(cards: Card[], placements: Record<string, { position: number }>): Card[] {
  return ordered(
    cards.map((card) => (placements[card.id] ? { ...card, position: placements[card.id]!.position } : card)),
  );
}
