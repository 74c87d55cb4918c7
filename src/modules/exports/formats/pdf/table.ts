import { MUTED, type PdfWriter } from './writer';

export interface Column {
  title: string;
  /** Points; the wrapping column takes what the others leave. */
  width?: number;
  /** The one column whose long text wraps; the others hold one line each. */
  wraps?: boolean;
  align?: 'start' | 'end';
}

const SIZE = 9;
const GAP = 8;

function pageCount(writer: PdfWriter): number {
  return writer.doc.bufferedPageRange().count;
}

/** A plain table whose header comes again at the top of every page it runs onto. */
export function table(writer: PdfWriter, given: readonly Column[], givenRows: ReadonlyArray<readonly string[]>): void {
  // A right-to-left report's tables start on the right, each column's text against its other side.
  const mirror = writer.rightToLeft;
  const columns = mirror
    ? given.map((column) => ({ ...column, align: column.align === 'end' ? 'start' : 'end' }) as Column).reverse()
    : given;
  const rows = mirror ? givenRows.map((row) => [...row].reverse()) : givenRows;
  const fixed = columns.reduce((sum, column) => sum + (column.wraps ? 0 : (column.width ?? 60)), 0);
  const widths = columns.map((column) =>
    column.wraps ? writer.width - fixed - GAP * (columns.length - 1) : (column.width ?? 60),
  );
  const starts: number[] = [];
  widths.reduce((x, width) => (starts.push(x), x + width + GAP), writer.left);

  const cellLabel = (text: string, index: number, top: number, style: { weight?: 'bold'; color?: string }) => {
    const end = columns[index]!.align === 'end';
    writer.label(text, end ? starts[index]! + widths[index]! : starts[index]!, top, {
      size: SIZE,
      maxWidth: widths[index]!,
      anchor: end ? 'end' : 'start',
      ...style,
    });
  };
  const header = () => {
    const top = writer.y;
    columns.forEach((column, index) => cellLabel(column.title, index, top, { weight: 'bold', color: MUTED }));
    const rule = top + SIZE * 1.45;
    writer.doc.moveTo(writer.left, rule).lineTo(writer.right, rule).lineWidth(0.5).strokeColor('#bbbbbb').stroke();
    writer.y = rule + 4;
  };

  writer.keepSpace(SIZE * 5);
  header();
  for (const row of rows) {
    if (writer.y + SIZE * 1.5 > writer.bottom) {
      writer.newPage();
      header();
    }
    const top = writer.y;
    const pages = pageCount(writer);
    let bottom = top + SIZE * 1.2;
    // Single-line cells first: a wrapping cell may run onto the next page.
    columns.forEach((column, index) => {
      if (!column.wraps) cellLabel(row[index] ?? '', index, top, {});
    });
    columns.forEach((column, index) => {
      if (!column.wraps) return;
      writer.paragraph(row[index] ?? '', { x: starts[index]!, y: top, width: widths[index]!, size: SIZE });
      bottom = pageCount(writer) === pages ? Math.max(bottom, writer.y) : writer.y;
    });
    writer.y = bottom + 3;
  }
  writer.skip(6);
}
