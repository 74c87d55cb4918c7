import { readsRightToLeft } from '../report-text';
import { type Face, hasRightToLeft, loadFace, runsOf, type Run, type Weight } from './fonts';

export interface TextStyle {
  size?: number;
  weight?: Weight;
  color?: string;
}

export interface ParagraphOptions extends TextStyle {
  /** Left edge; the page's left margin when absent. */
  x?: number;
  /** Top of the first line; the current position when absent. */
  y?: number;
  /** Wrapping width; up to the right margin when absent. */
  width?: number;
  align?: 'left' | 'center' | 'right';
  /** Space left below the paragraph. */
  after?: number;
}

export interface LabelOptions extends TextStyle {
  /** Longer labels are cut and end in an ellipsis. */
  maxWidth?: number;
  /** Which end of the label `x` names. */
  anchor?: 'start' | 'middle' | 'end';
}

export const INK = '#222222';
export const MUTED = '#666666';
const BODY_SIZE = 10;
const ELLIPSIS = '\u2026';

/*
 * Every line of every face sits on the baseline DejaVu Sans would use, so a Chinese word in a
 * Latin sentence lines up with it (the CJK fonts have a taller ascender).
 */
const PRIMARY_ASCENT = 1901 / 2048;
const PRIMARY_LINE_HEIGHT = (1901 + 483) / 2048;

/**
 * Writes text and keeps to the page: each run of a text goes out in the face that has its
 * characters, wrapped paragraphs flow onto new pages, and single-line labels are cut to fit.
 */
export class PdfWriter {
  private readonly registered = new Set<Face>();

  /**
   * `rightToLeft`: the report's language reads right to left (Arabic), so its paragraphs sit
   * against the right margin, indents come from the right, and tables and labels mirror.
   */
  constructor(
    readonly doc: PDFKit.PDFDocument,
    readonly rightToLeft = false,
  ) {}

  get left(): number {
    return this.doc.page.margins.left;
  }

  get right(): number {
    return this.doc.page.width - this.doc.page.margins.right;
  }

  get width(): number {
    return this.right - this.left;
  }

  /** The lowest y text may reach on this page. */
  get bottom(): number {
    return this.doc.page.height - this.doc.page.margins.bottom;
  }

  get y(): number {
    return this.doc.y;
  }

  set y(value: number) {
    this.doc.y = value;
  }

  private useFace(face: Face, size: number): void {
    if (!this.registered.has(face)) {
      // pdfkit embeds a parsed fontkit font as it is, which spares each document the parse.
      this.doc.registerFont(face, loadFace(face) as unknown as PDFKit.Mixins.PDFFontSource);
      this.registered.add(face);
    }
    this.doc.font(face).fontSize(size);
  }

  /** Where a block indented by `indent` from the start of the lines (the right in a right-to-left report) goes. */
  inset(indent: number): { x: number; width: number } {
    return { x: this.rightToLeft ? this.left : this.left + indent, width: this.width - indent };
  }

  /** A wrapped paragraph; the position ends below it, at the left margin. */
  paragraph(text: string, options: ParagraphOptions = {}): void {
    const { size = BODY_SIZE, weight = 'regular', color = INK, x = this.left, after = 0 } = options;
    const align = options.align ?? (this.rightToLeft ? 'right' : 'left');
    const width = options.width ?? this.right - x;
    if (options.y !== undefined) this.doc.y = options.y;
    if (hasRightToLeft(text)) {
      this.bidiParagraph(text, { size, weight, color, x, width, align });
    } else {
      this.doc.fillColor(color);
      const base = { width, align, baseline: -PRIMARY_ASCENT * size };
      const runs = runsOf(text, weight).filter((run) => run.text !== '');
      runs.forEach((run, index) => {
        this.useFace(run.face, size);
        const continued = index < runs.length - 1;
        if (index === 0) this.doc.text(run.text, x, this.doc.y, { ...base, continued });
        else this.doc.text(run.text, { ...base, continued });
      });
    }
    this.doc.x = this.left;
    this.doc.y += after;
  }

  /**
   * A paragraph with right-to-left words, broken into lines here and each line then set in visual
   * order (pdfkit's own wrapping would keep a right-to-left phrase's words in reading order, so
   * its lines would read backwards). A paragraph whose first letter reads right to left is set
   * against the right edge.
   */
  private bidiParagraph(text: string, options: Required<Omit<ParagraphOptions, 'y' | 'after'>>): void {
    const { size, weight, color, x, width, align } = options;
    const fromRight = align === 'right' || (align === 'left' && readsRightToLeft(text));
    for (const line of this.breakLines(text, width, { size, weight })) {
      this.keepSpace(size * PRIMARY_LINE_HEIGHT);
      const lineWidth = this.measure(line, { size, weight });
      const start = align === 'center' ? x + (width - lineWidth) / 2 : fromRight ? x + width - lineWidth : x;
      this.label(line, start, this.doc.y, { size, weight, color });
      this.doc.y += size * PRIMARY_LINE_HEIGHT;
    }
  }

  /** Logical lines of at most `width`, broken after spaces, a word too long for a line cut where it must. */
  private breakLines(text: string, width: number, style: TextStyle): string[] {
    const lines: string[] = [];
    const fits = (line: string) => this.measure(line.trimEnd(), style) <= width;
    for (const hardLine of text.split(/\r\n?|\n/)) {
      let line = '';
      for (const word of hardLine.split(/(?<= )/)) {
        if (line !== '' && !fits(line + word)) {
          lines.push(line.trimEnd());
          line = '';
        }
        line += word;
        while (!fits(line) && [...line.trimEnd()].length > 1) {
          const characters = [...line];
          let count = 1;
          while (count < characters.length - 1 && fits(characters.slice(0, count + 1).join(''))) count += 1;
          lines.push(characters.slice(0, count).join(''));
          line = characters.slice(count).join('');
        }
      }
      lines.push(line.trimEnd());
    }
    return lines;
  }

  /** The width `text` takes on one line. */
  measure(text: string, style: TextStyle = {}): number {
    return this.widthOfRuns(runsOf(text, style.weight ?? 'regular'), style.size ?? BODY_SIZE);
  }

  private widthOfRuns(runs: readonly Run[], size: number): number {
    let width = 0;
    for (const run of runs) {
      this.useFace(run.face, size);
      width += this.doc.widthOfString(run.text);
    }
    return width;
  }

  /** `text` itself when it fits in `maxWidth`, else its longest beginning that fits with an ellipsis. */
  fit(text: string, maxWidth: number, style: TextStyle = {}): string {
    const oneLine = text.replace(/\s+/g, ' ').trim();
    if (this.measure(oneLine, style) <= maxWidth) return oneLine;
    const characters = [...oneLine];
    const cut = (count: number) => characters.slice(0, count).join('').trimEnd() + ELLIPSIS;
    let fits = 0;
    let tooLong = characters.length;
    while (tooLong - fits > 1) {
      const middle = Math.floor((fits + tooLong) / 2);
      if (this.measure(cut(middle), style) <= maxWidth) fits = middle;
      else tooLong = middle;
    }
    return cut(fits);
  }

  /**
   * One line of text whose top is at `y`, never wrapped and never moving the position; returns
   * the width it took.
   */
  label(text: string, x: number, y: number, options: LabelOptions = {}): number {
    const { size = BODY_SIZE, weight = 'regular', color = INK, anchor = 'start' } = options;
    const shown =
      options.maxWidth === undefined ? text.replace(/\s+/g, ' ') : this.fit(text, options.maxWidth, options);
    const runs = runsOf(shown, weight);
    const width = this.widthOfRuns(runs, size);
    const { x: keptX, y: keptY } = this.doc;
    let at = anchor === 'start' ? x : anchor === 'middle' ? x - width / 2 : x - width;
    this.doc.fillColor(color);
    for (const run of runs) {
      this.useFace(run.face, size);
      this.doc.text(run.text, at, y, { lineBreak: false, baseline: -PRIMARY_ASCENT * size });
      at = this.doc.x;
    }
    this.doc.x = keptX;
    this.doc.y = keptY;
    return width;
  }

  /** Starts a new page unless `height` still fits below the position. */
  keepSpace(height: number): void {
    if (this.doc.y + height > this.bottom) this.newPage();
  }

  newPage(): void {
    this.doc.addPage();
  }

  /** Moves the position down. */
  skip(height: number): void {
    this.doc.y += height;
  }

  heading(text: string, level: 1 | 2 | 3): void {
    const size = level === 1 ? 20 : level === 2 ? 14 : 11.5;
    this.keepSpace(size * 4);
    if (level > 1 && this.doc.y > this.doc.page.margins.top) this.skip(size * 0.6);
    this.paragraph(text, { size, weight: 'bold', after: size * 0.4 });
  }

  /** A quieter line for "nothing here" notes and bylines. */
  note(text: string, options: ParagraphOptions = {}): void {
    this.paragraph(text, { size: 9, color: MUTED, ...options });
  }
}
