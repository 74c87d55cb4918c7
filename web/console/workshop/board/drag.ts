/*
 * Dragging a card with a pointer (mouse, touch or pen). A card is taken by its grip with any
 * pointer, or anywhere but its controls with a mouse (a finger on a card scrolls the page). Over
 * an idea's top or bottom edge an idea lands before or after it; over its middle, the two merge
 * (after a confirmation); over a cluster, at its end. A cluster lands before or after another.
 * The place is drawn on the board as the pointer moves; Escape drops nothing.
 */
import type { Card } from 'workshop-sdk';
import type { Place } from './model';
import {
  clearMarks,
  clearTargets,
  elementOf,
  mark,
  markPlace,
  neighbours,
  rightToLeft,
  type BoardContext,
} from './places';

type Target = { place: Place } | { mergeWith: Card } | null;

/** How far (px) a pointer moves before a press becomes a drag, so a click stays a click. */
const THRESHOLD = 6;
/** How close (px) to the window's top or bottom the pointer scrolls the page. */
const EDGE = 48;

export function startDrag(board: BoardContext, event: PointerEvent): void {
  const target = event.target as Element;
  const element = target.closest<HTMLElement>('[data-card-id]');
  const card = element && board.card(element.dataset.cardId!);
  if (!element || !card || !takes(event, target, card)) return;
  if (event.pointerType === 'mouse') event.preventDefault(); // no text selection while dragging

  const start = { x: event.clientX, y: event.clientY };
  let last = start;
  let ghost: HTMLElement | null = null;
  let goal: Target = null;
  let scrolling = 0;

  const follow = () => {
    ghost!.style.transform = `translate(${last.x + 12}px, ${last.y + 8}px)`;
    goal = targetAt(board, card, last.x, last.y);
    if (goal && 'place' in goal) markPlace(board, card, goal.place);
    else {
      clearTargets();
      if (goal) mark(elementOf(board, goal.mergeWith.id), 'merge-target');
    }
  };
  const scroll = () => {
    const by = last.y < EDGE ? -16 : last.y > innerHeight - EDGE ? 16 : 0;
    if (by !== 0) {
      scrollBy(0, by);
      follow();
    }
    scrolling = requestAnimationFrame(scroll);
  };
  const move = (moved: PointerEvent) => {
    if (moved.pointerId !== event.pointerId) return;
    last = { x: moved.clientX, y: moved.clientY };
    if (!ghost) {
      if (Math.hypot(last.x - start.x, last.y - start.y) < THRESHOLD) return;
      ghost = document.body.appendChild(document.createElement('div'));
      ghost.className = 'drag-ghost';
      ghost.textContent = card.title;
      mark(element, 'dragging');
      scrolling = requestAnimationFrame(scroll);
    }
    moved.preventDefault();
    follow();
  };
  const end = (ended: PointerEvent | KeyboardEvent) => {
    if (ended instanceof PointerEvent && ended.pointerId !== event.pointerId) return;
    if (ended instanceof KeyboardEvent && ended.key !== 'Escape') return;
    removeEventListener('pointermove', move);
    removeEventListener('pointerup', end);
    removeEventListener('pointercancel', end);
    removeEventListener('keydown', end, true);
    cancelAnimationFrame(scrolling);
    ghost?.remove();
    clearMarks();
    if (!ghost || !(ended instanceof PointerEvent) || ended.type !== 'pointerup') return;
    const dropped = targetAt(board, card, ended.clientX, ended.clientY);
    if (dropped && 'place' in dropped) board.move(card, dropped.place);
    else if (dropped) board.askMerge(card, dropped.mergeWith);
  };
  addEventListener('pointermove', move);
  addEventListener('pointerup', end);
  addEventListener('pointercancel', end);
  addEventListener('keydown', end, true);
}

/** Whether this press takes the card: any primary press on its grip, a mouse's elsewhere on it. */
function takes(event: PointerEvent, target: Element, card: Card): boolean {
  if (event.button !== 0) return false;
  if (target.closest('[data-act="grab"]')) return true;
  if (event.pointerType !== 'mouse' || target.closest('button, a, input, select, textarea, label, form')) return false;
  return card.parent !== null || target.closest('.cluster-head') !== null;
}

/** What lies under the pointer for `card`: a place, an idea to merge with, or nothing. */
function targetAt(board: BoardContext, card: Card, x: number, y: number): Target {
  const under = document.elementFromPoint(x, y);
  if (!under || !board.root()?.contains(under)) return null;
  if (card.parent === null) {
    const cluster = under.closest<HTMLElement>('[data-kind="cluster"]');
    const other = cluster && board.card(cluster.dataset.cardId!);
    if (!other || other.id === card.id) return null;
    return { place: { parent: null, index: indexBeside(board, card, other, cluster, x, y, true) } };
  }
  const idea = under.closest<HTMLElement>('[data-kind="idea"]');
  const other = idea && board.card(idea.dataset.cardId!);
  if (idea && other) {
    if (other.id === card.id) return null;
    const box = idea.getBoundingClientRect();
    const at = (y - box.top) / box.height;
    if (at >= 0.3 && at <= 0.7) return { mergeWith: other };
    return { place: { parent: other.parent, index: indexBeside(board, card, other, idea, x, y, false) } };
  }
  const cluster = under.closest<HTMLElement>('[data-kind="cluster"]');
  if (!cluster) return null;
  const parent = cluster.dataset.cardId!;
  return { place: { parent, index: neighbours(board, card, parent).length } };
}

/**
 * The index before or after `other` (shown at `element`), by the half of it the pointer is in:
 * across for clusters laid out side by side (after is on the left when the board reads right to
 * left), down otherwise.
 */
function indexBeside(
  board: BoardContext,
  card: Card,
  other: Card,
  element: HTMLElement,
  x: number,
  y: number,
  sideways: boolean,
): number {
  const box = element.getBoundingClientRect();
  const across = sideways && box.width < (board.root()?.clientWidth ?? 0) * 0.6;
  const middle = box.left + box.width / 2;
  const after = across ? (rightToLeft(board) ? x < middle : x > middle) : y > box.top + box.height / 2;
  const index = neighbours(board, card, other.parent).indexOf(other);
  return after ? index + 1 : index;
}
