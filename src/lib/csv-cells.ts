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
