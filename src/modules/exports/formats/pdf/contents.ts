import { t } from '../../../../i18n/messages';
import { formatNumber } from '../report-text';
import { MUTED, type PdfWriter } from './writer';

/** One entry of the table of contents and the sidebar outline, with what it lays out. */
export interface Part {
  title: string;
  /** 1: a section, always on a new page; 2: a subsection within the section before it. */
  level: 1 | 2;
  /** A subsection that needs a page of its own (a chart). */
  newPage?: boolean;
  render: (writer: PdfWriter) => void;
}

interface ContentsLine {
  part: Part;
  /** Where the entry sits on the contents pages, to fill in its page number at the end. */
  page: number;
  top: number;
  bottom: number;
  /** The 0-based page the part begins on, known once it is laid out. */
  target: number;
}

const NUMBER_COLUMN = 40;

function currentPage(writer: PdfWriter): number {
  const { start, count } = writer.doc.bufferedPageRange();
  return start + count - 1;
}

/**
 * Writes the contents pages with every part's title, leaving the page numbers for `fillIn`: they
 * are known only once the parts are laid out, while the pages stay in memory (`bufferPages`).
 */
function writeContents(writer: PdfWriter, parts: readonly Part[], heading: string): ContentsLine[] {
  const { doc } = writer;
  doc.outline.addItem(heading);
  writer.heading(heading, 1);
  writer.skip(6);
  return parts.map((part) => {
    const indent = part.level === 1 ? 0 : 16;
    writer.keepSpace(28);
    if (part.level === 1) writer.skip(5);
    const page = currentPage(writer);
    const top = writer.y;
    // The page numbers stand at the end of the lines: on the left in a right-to-left report.
    writer.paragraph(part.title, {
      x: writer.rightToLeft ? writer.left + NUMBER_COLUMN : writer.left + indent,
      width: writer.width - indent - NUMBER_COLUMN,
      size: part.level === 1 ? 11 : 10,
      weight: part.level === 1 ? 'bold' : 'regular',
    });
    const bottom = writer.y;
    writer.skip(3);
    return { part, page, top, bottom, target: -1 };
  });
}

function destinationOf(index: number): string {
  return `part-${index + 1}`;
}

/** Lays out the parts in order, each recorded in the outline with the page it begins on. */
function writeParts(writer: PdfWriter, lines: ContentsLine[]): void {
  const { doc } = writer;
  let section: PDFKit.PDFOutline = doc.outline;
  lines.forEach((line, index) => {
    const { part } = line;
    if (part.level === 1 || part.newPage) writer.newPage();
    else writer.keepSpace(90);
    line.target = currentPage(writer);
    // Named destinations take PDF coordinates, which count from the page's bottom.
    doc.addNamedDestination(destinationOf(index), 'XYZ', 0, doc.page.height - writer.y + 12, null);
    if (part.level === 1) section = doc.outline.addItem(part.title, { expanded: true });
    else section.addItem(part.title);
    writer.heading(part.title, part.level);
    part.render(writer);
  });
}

/** The page numbers of the contents, each entry also a link to its page. */
function fillIn(writer: PdfWriter, lines: readonly ContentsLine[], lang: string): void {
  const { doc } = writer;
  lines.forEach((line, index) => {
    doc.switchToPage(line.page);
    writer.label(formatNumber(lang, line.target + 1), writer.rightToLeft ? writer.left : writer.right, line.top, {
      anchor: writer.rightToLeft ? 'start' : 'end',
      size: line.part.level === 1 ? 11 : 10,
      weight: line.part.level === 1 ? 'bold' : 'regular',
    });
    doc.goTo(writer.left, line.top, writer.width, Math.max(line.bottom - line.top, 10), destinationOf(index));
  });
}

/** "Page n of m" on every page, with the workshop's title beside it. */
function numberPages(writer: PdfWriter, title: string, lang: string): void {
  const { doc } = writer;
  const { start, count } = doc.bufferedPageRange();
  for (let index = start; index < start + count; index += 1) {
    doc.switchToPage(index);
    const y = doc.page.height - doc.page.margins.bottom + 18;
    const style = { size: 8, color: MUTED };
    const pageOf = t(lang, 'export.page_of', { page: index + 1, count });
    const [numberAt, titleAt] = writer.rightToLeft ? [writer.left, writer.right] : [writer.right, writer.left];
    const numberWidth = writer.label(pageOf, numberAt, y, { ...style, anchor: writer.rightToLeft ? 'start' : 'end' });
    if (index > start)
      writer.label(title, titleAt, y, {
        ...style,
        anchor: writer.rightToLeft ? 'end' : 'start',
        maxWidth: writer.width - numberWidth - 24,
      });
  }
}

/**
 * The contents page, then every part, then what only the finished layout tells: the contents'
 * page numbers and the page footers.
 */
export function layOut(writer: PdfWriter, parts: readonly Part[], title: string, lang: string): void {
  writer.newPage();
  const lines = writeContents(writer, parts, t(lang, 'export.heading.contents'));
  writeParts(writer, lines);
  fillIn(writer, lines, lang);
  numberPages(writer, title, lang);
}
