import { HeadingLevel, Paragraph, TextRun } from 'docx';
import { readsRightToLeft } from '../report-text';

// XML 1.0 refuses C0 controls (but tab, newline, return), lone surrogates and U+FFFE/U+FFFF: one
// of them in a card title would leave a file Word cannot open, so they are dropped.
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlSafe(text: string): string {
  return text.replace(NOT_XML, '');
}

export interface RunStyle {
  bold?: boolean;
  italics?: boolean;
  color?: string;
  size?: number;
}

/** Runs for a text whose line breaks stay line breaks. */
export function runsOf(text: string, style: RunStyle = {}, rightToLeft = false): TextRun[] {
  return xmlSafe(text)
    .split(/\r\n|\r|\n/)
    .map(
      (line, index) =>
        new TextRun({ ...style, text: line, break: index > 0 ? 1 : undefined, rightToLeft: rightToLeft || undefined }),
    );
}

/**
 * The paragraphs of a report whose language reads `rightToLeft` (Arabic): every paragraph is then
 * laid out right to left (Word's bidi, so it starts on the right and its table columns run from
 * the right). In a left-to-right report, a paragraph that starts in Arabic or Hebrew is too.
 */
export interface DocxText {
  rightToLeft: boolean;
  paragraph(text: string, style?: RunStyle): Paragraph;
  /** A paragraph of labelled parts, such as "Score 3 · Votes 4": the labels stay plain, the values bold. */
  factsParagraph(facts: ReadonlyArray<readonly [label: string, value: string]>): Paragraph;
  heading(level: 1 | 2 | 3, text: string, options?: { pageBreakBefore?: boolean }): Paragraph;
  /** A quieter paragraph for "nothing here" notes and bylines. */
  note(text: string): Paragraph;
}

const HEADING_STYLES = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;

export function docxText(rightToLeft: boolean): DocxText {
  const bidi = (text: string) => rightToLeft || readsRightToLeft(text) || undefined;
  const paragraph = (text: string, style: RunStyle = {}) =>
    new Paragraph({ bidirectional: bidi(text), children: runsOf(text, style, readsRightToLeft(text)) });
  return {
    rightToLeft,
    paragraph,
    factsParagraph(facts) {
      const children = facts.flatMap(([label, value], index) => [
        new TextRun({ text: `${index > 0 ? '  ·  ' : ''}${xmlSafe(label)} `, rightToLeft: rightToLeft || undefined }),
        new TextRun({ text: xmlSafe(value), bold: true }),
      ]);
      return new Paragraph({ bidirectional: rightToLeft || undefined, children });
    },
    heading(level, text, options = {}) {
      return new Paragraph({
        heading: HEADING_STYLES[level],
        bidirectional: bidi(text),
        pageBreakBefore: options.pageBreakBefore,
        children: runsOf(text, {}, readsRightToLeft(text)),
      });
    },
    note: (text) => paragraph(text, { italics: true, color: '666666' }),
  };
}
