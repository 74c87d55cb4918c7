/**
 * Formula injection: a spreadsheet opening a CSV runs a cell that begins with `=`, `+`, `-` or `@`
 * as a formula, and some also after a leading tab or carriage return. The export writes such a
 * text cell behind a `'`, which spreadsheets show as text; the importer takes one `'` off again.
 *
 * The rule is reversible: a cell that already begins with `'` followed by something that would
 * need it gets one more, so `'=x` is written `''=x` and reads back as `'=x`, while a title such as
 * `'Tis the season` needs nothing and is left alone both ways.
 */

// A formula start, possibly behind the quotes of earlier neutralising.
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** Whether `value` would be read as a formula, or is a neutralised one. */
export function needsEscape(value: string): boolean {
  return FORMULA_START.test(value);
}

/** The text cell as the export writes it. */
export function neutralizeCell(value: string): string {
  return needsEscape(value) ? `'${value}` : value;
}

/** The text cell as the export's author wrote it: the inverse of `neutralizeCell`. */
export function restoreCell(value: string): string {
  return value.startsWith("'") && needsEscape(value.slice(1)) ? value.slice(1) : value;
}

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
