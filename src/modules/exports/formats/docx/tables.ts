import { Paragraph, ShadingType, Table, TableCell, TableRow, WidthType } from 'docx';
import type { DocxText } from './text';

/** Text width of an A4 page with the default one-inch margins, in twips. */
const TEXT_WIDTH = 9026;
const HEADER_SHADING = { type: ShadingType.CLEAR, color: 'auto', fill: 'DCE3EC' } as const;

export interface Column {
  title: string;
  /** Share of the table's width, against the other columns' weights. */
  weight: number;
}

/** What a cell holds: a text, or paragraphs built by the caller. */
export type Cell = string | Paragraph[];

/**
 * A full-width table whose first row is marked as its header, so Word repeats it on every page
 * the table runs over and screen readers announce it.
 */
export function dataTable(text: DocxText, columns: readonly Column[], rows: ReadonlyArray<readonly Cell[]>): Table {
  const totalWeight = columns.reduce((sum, column) => sum + column.weight, 0);
  const widths = columns.map((column) => Math.floor((TEXT_WIDTH * column.weight) / totalWeight));
  const cell = (content: Cell, index: number, header: boolean) =>
    new TableCell({
      width: { size: widths[index]!, type: WidthType.DXA },
      shading: header ? HEADER_SHADING : undefined,
      children: typeof content === 'string' ? [text.paragraph(content, header ? { bold: true } : {})] : content,
    });
  return new Table({
    width: { size: TEXT_WIDTH, type: WidthType.DXA },
    columnWidths: widths,
    // A right-to-left report's tables start on the right.
    visuallyRightToLeft: text.rightToLeft || undefined,
    rows: [
      new TableRow({
        tableHeader: true,
        cantSplit: true,
        children: columns.map((column, index) => cell(column.title, index, true)),
      }),
      ...rows.map((row) => new TableRow({ children: row.map((content, index) => cell(content, index, false)) })),
    ],
  });
}
