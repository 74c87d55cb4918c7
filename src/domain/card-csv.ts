/*
 * The cards as a CSV file (docs/api.md#cards): `PUT …/cards` imports one, and the CSV export writes
 * one that imports back as it was. Both sides take their columns from here.
 */

/** The import's columns; an export writes the same ones first. */
export const CARD_CSV_COLUMNS = ['type', 'title', 'content', 'cluster', 'color', 'aside'] as const;

/**
 * The figures an export writes after the card's own columns: `short_id`, `score`, `votes`,
 * `comments`, `items`, then `rating:<criterion title>` per criterion. An import reads past them,
 * so an export imports back as it is.
 */
export const EXPORT_FIGURE_COLUMNS = ['short_id', 'score', 'votes', 'comments', 'items'] as const;
export const RATING_COLUMN_PREFIX = 'rating:';

/** Whether a header cell, trimmed and lower-cased as the importer reads it, names a figure column. */
export function isFigureColumn(name: string): boolean {
  return (EXPORT_FIGURE_COLUMNS as readonly string[]).includes(name) || name.startsWith(RATING_COLUMN_PREFIX);
}
