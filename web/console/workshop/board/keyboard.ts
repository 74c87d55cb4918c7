/*
 * Moving a card without a pointer: on a card's grip, Space (or Enter) picks it up, the arrow keys
 * move where it would land (up and down within a cluster, left and right to the previous or next
 * cluster; a cluster moves among the clusters), Space drops it there and Escape puts it back.
 * Each step is said in the board's live region; nothing is sent until the drop.
 */
import type { Card } from 'workshop-sdk';
import { t } from '../../i18n';
import { nameOf, type Place } from './model';
import {
  clearMarks,
  describePlace,
  elementOf,
  mark,
  markPlace,
  neighbours,
  placeOf,
  rightToLeft,
  type BoardContext,
} from './places';

export interface KeyboardMover {
  /** Handles a key pressed on `card`'s grip; true when it was the mover's. */
  keyDown(event: KeyboardEvent, card: Card): boolean;
  /** Puts a held card back (focus left it, or the board went away). */
  cancel(): void;
}

export function keyboardMover(board: BoardContext): KeyboardMover {
  let held: { card: Card; place: Place } | null = null;

  const cancel = () => {
    if (!held) return;
    board.announce(t('console.board.announce.cancelled', { card: nameOf(held.card) }));
    held = null;
    clearMarks();
  };

  const pickUp = (card: Card) => {
    held = { card, place: placeOf(board, card) };
    mark(elementOf(board, card.id), 'picked');
    board.announce(
      t('console.board.announce.picked_up', { card: nameOf(card), ...describePlace(board, card, held.place) }),
    );
  };

  const step = (key: string) => {
    if (!held) return;
    const next = stepped(board, held.card, held.place, key);
    if (!next) return;
    held.place = next;
    markPlace(board, held.card, next);
    board.announce(
      t('console.board.announce.step', { card: nameOf(held.card), ...describePlace(board, held.card, next) }),
    );
  };

  return {
    keyDown(event, card) {
      const key = event.key;
      if (key === ' ' || key === 'Enter') {
        event.preventDefault();
        if (held && held.card.id === card.id) {
          const { place } = held;
          held = null;
          clearMarks();
          board.move(card, place);
        } else {
          cancel();
          pickUp(card);
        }
        return true;
      }
      if (!held || held.card.id !== card.id) return false;
      if (key === 'Escape') {
        event.preventDefault();
        cancel();
        return true;
      }
      if (!key.startsWith('Arrow')) return false;
      event.preventDefault();
      step(key);
      return true;
    },
    cancel,
  };
}

/**
 * The place one arrow key away from `place`, or null when there is none that way. Left and right
 * follow the reading direction: on a right-to-left board the next cluster is on the left.
 */
function stepped(board: BoardContext, card: Card, place: Place, key: string): Place | null {
  const count = neighbours(board, card, place.parent).length;
  const [before, after] = rightToLeft(board) ? ['ArrowRight', 'ArrowLeft'] : ['ArrowLeft', 'ArrowRight'];
  const back = key === 'ArrowUp' || (place.parent === null && key === before);
  const forward = key === 'ArrowDown' || (place.parent === null && key === after);
  if (back) return place.index > 0 ? { ...place, index: place.index - 1 } : null;
  if (forward) return place.index < count ? { ...place, index: place.index + 1 } : null;
  if (place.parent === null || (key !== before && key !== after)) return null;
  // An idea goes to the neighbouring cluster shown, at the same height or its end.
  const clusters = board.columns().map((column) => column.head.id);
  const to = clusters[clusters.indexOf(place.parent) + (key === before ? -1 : 1)];
  if (!to) return null;
  return { parent: to, index: Math.min(place.index, neighbours(board, card, to).length) };
}
