/*
 * The board worked out from the live cards, apart from the DOM: which clusters and ideas the
 * filter shows, in the live state's order (clusters by position, each followed by its ideas by
 * position, as web/shared/board.ts lays them out for the screen), and where a move lands.
 */
import type { Card } from 'workshop-sdk';
import type { Stack } from '../../../shared/board';
import { t } from '../../i18n';

export type CardColor = NonNullable<Card['color']>;

/** The API's card colours, in the order the colour menus offer them; checked complete against the type. */
const COLOR_NAMES = {
  blue: 'console.board.color.blue',
  green: 'console.board.color.green',
  red: 'console.board.color.red',
  orange: 'console.board.color.orange',
  purple: 'console.board.color.purple',
  yellow: 'console.board.color.yellow',
  turquoise: 'console.board.color.turquoise',
  rose: 'console.board.color.rose',
  gray: 'console.board.color.gray',
  brown: 'console.board.color.brown',
  beige: 'console.board.color.beige',
} as const satisfies Record<CardColor, string>;
const COLORS = Object.keys(COLOR_NAMES) as CardColor[];

/** The colours with their names in the console's language, read when a menu is drawn. */
export function cardColors(): Array<[CardColor, string]> {
  return COLORS.map((color) => [color, t(COLOR_NAMES[color])]);
}

export type Filter = 'active' | 'aside' | 'all';

/** A cluster as the board shows it: `ideas` are those the filter lets through. */
export interface Column extends Stack {
  head: Card;
}

/**
 * The clusters and ideas the filter shows. `active`: what is not set aside (an aside cluster takes
 * its ideas with it); `aside`: what is set aside (an aside cluster with all its ideas, an active
 * one only for its aside ideas); `all`: everything. One pass over the ordered list.
 */
export function columnsOf(cards: Card[], filter: Filter): Column[] {
  const columns: Column[] = [];
  const byId = new Map<string, Column>();
  for (const card of cards) {
    if (card.parent === null) {
      const column = { head: card, ideas: [] as Card[] };
      byId.set(card.id, column);
      columns.push(column);
      continue;
    }
    const column = byId.get(card.parent);
    if (column && shows(filter, column.head, card)) column.ideas.push(card);
  }
  return columns.filter(({ head, ideas }) => {
    if (filter === 'all') return true;
    if (filter === 'active') return !head.aside;
    return head.aside || ideas.length > 0;
  });
}

function shows(filter: Filter, cluster: Card, idea: Card): boolean {
  if (filter === 'all') return true;
  if (filter === 'active') return !cluster.aside && !idea.aside;
  return cluster.aside || idea.aside;
}

/** Where a card goes: under `parent` (null for a cluster), before the `index`-th of the cards shown there without it. */
export interface Place {
  parent: string | null;
  index: number;
}

/**
 * The `position` to send for `place`: the index in the whole stack (every card of it, shown or
 * not, without the one moving) of the shown card it lands before, or just after the last shown
 * one when it lands at the end. The server renumbers a stack as a list without the moving card.
 */
export function positionFor(stack: Card[], shown: Card[], movingId: string, index: number): number {
  const others = stack.filter((card) => card.id !== movingId);
  const shownOthers = shown.filter((card) => card.id !== movingId);
  const before = shownOthers[index];
  if (before) return others.indexOf(before);
  const last = shownOthers.at(-1);
  return last ? others.indexOf(last) + 1 : others.length;
}

/** Every card of one stack (a cluster's ideas, or the clusters when `parent` is null), in order. */
export function stackOf(cards: Card[], parent: string | null): Card[] {
  return cards.filter((card) => card.parent === parent);
}

/** Whether two prop lists hold the same values (arrays compared item by item): what lets a card skip a redraw. */
export function sameProps(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => {
    const [x, y] = [a[key], b[key]];
    if (x === y) return true;
    return Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((item, i) => item === y[i]);
  });
}

/** A card's name in sentences and announcements: its title, or its short id when it has none. */
export function nameOf(card: Card): string {
  return card.title.trim() || `#${card.short_id}`;
}

/** What a card is called in a list: its title, else the start of its text, else its short id. */
export function cardLabel(card: Card): string {
  const words = card.title.trim() || card.content.trim().slice(0, 80);
  return words || `#${card.short_id}`;
}
