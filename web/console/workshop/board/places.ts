/*
 * What the two ways of moving a card (a pointer's drag, the keyboard's pick-up) share: the board
 * as it stands, where a card is, how a place is said, and the drop target drawn on the cards.
 * Drop targets are classes set straight on the elements while a gesture lasts, so moving over
 * 500 cards redraws none of them.
 */
import type { Card } from 'workshop-sdk';
import { nameOf, type Column, type Place } from './model';

/** The board as the gestures see it, always the latest render's, and what they ask of it. */
export interface BoardContext {
  root(): HTMLElement | null;
  columns(): Column[];
  card(id: string): Card | undefined;
  /** Puts `card` at `place` (a PUT, said in the live region when done). */
  move(card: Card, place: Place): void;
  /** Asks, in the page, whether to merge `source` into `target`. */
  askMerge(source: Card, target: Card): void;
  announce(text: string): void;
}

/** The cards shown beside `card` where it would land: the ideas of cluster `parent`, or the clusters. */
export function neighbours(board: BoardContext, card: Card, parent: string | null): Card[] {
  const shown =
    parent === null
      ? board.columns().map((column) => column.head)
      : (board.columns().find((column) => column.head.id === parent)?.ideas ?? []);
  return shown.filter((other) => other.id !== card.id);
}

/** Where `card` is now, as a place among the cards shown. */
export function placeOf(board: BoardContext, card: Card): Place {
  const shown =
    card.parent === null
      ? board.columns().map((column) => column.head)
      : (board.columns().find((column) => column.head.id === card.parent)?.ideas ?? []);
  return { parent: card.parent, index: Math.max(0, shown.indexOf(card)) };
}

/**
 * `place` as the values of the board's announcements (console.board.announce.*), which say it in
 * the whole sentence: "in Ideas, place 2 of 5" for an idea, "place 2 of 4" for a cluster.
 */
export function describePlace(board: BoardContext, card: Card, place: Place): PlaceWords {
  const count = neighbours(board, card, place.parent).length + 1;
  const at = place.index + 1;
  if (place.parent === null) return { kind: 'cluster', cluster: '', at, count };
  const cluster = board.card(place.parent);
  return cluster ? { kind: 'idea', cluster: nameOf(cluster), at, count } : { kind: 'unknown', cluster: '', at, count };
}
export interface PlaceWords {
  kind: 'cluster' | 'idea' | 'unknown';
  cluster: string;
  at: number;
  count: number;
}

/**
 * Whether the board reads right to left (an Arabic console, docs/i18n.md#right-to-left): its
 * clusters and a card's buttons are laid out from the right, so the arrow keys and a drag across
 * follow them the other way.
 */
export function rightToLeft(board: BoardContext): boolean {
  const root = board.root();
  return root !== null && getComputedStyle(root).direction === 'rtl';
}

const MARKS = ['picked', 'dragging', 'drop-into', 'drop-before', 'drop-after', 'merge-target'];
const marked = new Set<Element>();

export function elementOf(board: BoardContext, id: string): HTMLElement | null {
  return board.root()?.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(id)}"]`) ?? null;
}

export function mark(element: Element | null, name: string): void {
  if (!element) return;
  element.classList.add(name);
  marked.add(element);
}

export function clearMarks(): void {
  for (const element of marked) element.classList.remove(...MARKS);
  marked.clear();
}

/** Takes the drop target off the board (a held or dragged card keeps its own mark). */
export function clearTargets(): void {
  for (const element of marked) element.classList.remove('drop-into', 'drop-before', 'drop-after', 'merge-target');
}

/** Draws where `card` would land: its cluster outlined, and a line before or after a neighbour. */
export function markPlace(board: BoardContext, card: Card, place: Place): void {
  clearTargets();
  const others = neighbours(board, card, place.parent);
  if (place.parent !== null) mark(elementOf(board, place.parent), 'drop-into');
  const before = others[place.index];
  const after = others.at(-1);
  if (before) mark(elementOf(board, before.id), 'drop-before');
  else if (after) mark(elementOf(board, after.id), 'drop-after');
}
