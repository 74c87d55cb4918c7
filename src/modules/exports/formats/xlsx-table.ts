/** A value as it goes into a cell: exceljs types each by its JavaScript type. */
export type Cell = string | number | boolean | Date | null;

/** What a column holds, which picks its number format and how its width is measured. */
export type CellKind = 'text' | 'integer' | 'decimal' | 'boolean' | 'date';

export interface Column<Row> {
  header: string;
  kind: CellKind;
  value: (row: Row) => Cell;
}

/** One table's cells, ready to write: a header row, then one row per entry. */
export interface Table {
  name: string;
  headers: string[];
  kinds: CellKind[];
  rows: Cell[][];
}

export function tableOf<Row>(name: string, columns: readonly Column<Row>[], entries: readonly Row[]): Table {
  return {
    name,
    headers: columns.map((column) => column.header),
    kinds: columns.map((column) => column.kind),
    rows: entries.map((entry) => columns.map((column) => column.value(entry))),
  };
}

/** Widths in characters of the default font; longer texts run on past the column's edge. */
const MIN_WIDTH = 6;
const MAX_WIDTH = 60;
const PADDING = 2;
const DATE_WIDTH = 'yyyy-mm-dd hh:mm'.length;

/** Per column, a width that fits its header and its longest value (`more` rows count too), capped. */
export function columnWidths(table: Table, more: readonly (readonly Cell[])[] = []): number[] {
  return table.kinds.map((kind, index) => {
    let widest = textWidth(table.headers[index]!, MAX_WIDTH);
    for (const rows of [table.rows, more]) {
      for (const row of rows) {
        if (widest >= MAX_WIDTH) break;
        widest = Math.max(widest, cellWidth(row[index] ?? null, kind));
      }
    }
    return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widest + PADDING));
  });
}

function cellWidth(cell: Cell, kind: CellKind): number {
  if (cell === null) return 0;
  if (cell instanceof Date) return DATE_WIDTH;
  if (typeof cell === 'number') return (kind === 'decimal' ? cell.toFixed(2) : String(cell)).length;
  if (typeof cell === 'boolean') return 'FALSE'.length;
  return textWidth(cell, MAX_WIDTH);
}

/**
 * The width of the text's longest line, counting East Asian wide characters and emoji as two;
 * reading stops once a line reaches `cap`, so a long content is not read to its end.
 */
export function textWidth(text: string, cap: number): number {
  let widest = 0;
  let line = 0;
  for (const character of text) {
    if (character === '\n') {
      line = 0;
      continue;
    }
    line += isWide(character.codePointAt(0)!) ? 2 : 1;
    widest = Math.max(widest, line);
    if (widest >= cap) break;
  }
  return widest;
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}
