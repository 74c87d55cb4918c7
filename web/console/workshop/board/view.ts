/*
 * How the facilitator looks at a large board, apart from the DOM: the search that narrows it (a
 * card's text, its author's name, or its cluster's title) and the clusters folded. What the search
 * leaves is what the board draws, moves among and counts; a folded cluster keeps its ideas in the
 * columns (a card can still be moved into it) but draws none of them.
 */
import type { Card } from 'workshop-sdk';
import { t } from '../../i18n';
import type { Column } from './model';

/** What a search leaves: the columns to draw, and how many cards matched (null with no search). */
export interface Searched {
  columns: Column[];
  matches: number | null;
}

/**
 * Whether a card matches `query`: its title or text holds the words, its author's name does, or
 * the query is its short id (`#12`). Null for an empty query, which matches everything.
 */
export function cardMatcher(query: string, authorOf: (card: Card) => string): ((card: Card) => boolean) | null {
  const words = query.trim().toLowerCase();
  if (!words) return null;
  return (card) =>
    card.title.toLowerCase().includes(words) ||
    card.content.toLowerCase().includes(words) ||
    `#${card.short_id}`.toLowerCase() === words ||
    authorOf(card).toLowerCase().includes(words);
}

/**
 * The columns whose cards match `query`: a cluster whose title or author matches keeps all its
 * ideas (they count as matches), another keeps the ideas that match.
 */
export function searched(columns: Column[], query: string, authorOf: (card: Card) => string): Searched {
  const matches = cardMatcher(query, authorOf);
  if (!matches) return { columns, matches: null };
  const found: Column[] = [];
  let count = 0;
  for (const column of columns) {
    if (matches(column.head)) {
      found.push(column);
      count += 1 + column.ideas.length;
      continue;
    }
    const ideas = column.ideas.filter(matches);
    if (ideas.length > 0) found.push({ head: column.head, ideas });
    count += ideas.length;
  }
  return { columns: found, matches: count };
}

/** "3 cards match “word” in 2 clusters", said to screen readers as the search narrows the board. */
export function matchText({ columns, matches: cards }: Searched, query: string): string {
  if (!cards) return t('console.board.search.none', { query: query.trim() });
  return t('console.board.search.matches', { cards, query: query.trim(), clusters: columns.length });
}
