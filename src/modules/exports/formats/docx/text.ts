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

/** A body paragraph; one that starts in Arabic or Hebrew is laid out right to left. */
export function paragraph(text: string, style: RunStyle = {}): Paragraph {
  const rightToLeft = readsRightToLeft(text);
  return new Paragraph({ bidirectional: rightToLeft || undefined, children: runsOf(text, style, rightToLeft) });
}

/** A paragraph of labelled parts, such as "Score 3 · Votes 4": the labels stay plain, the values bold. */
export function factsParagraph(facts: ReadonlyArray<readonly [label: string, value: string]>): Paragraph {
  const children = facts.flatMap(([label, value], index) => [
    new TextRun({ text: `${index > 0 ? '  ·  ' : ''}${xmlSafe(label)} ` }),
    new TextRun({ text: xmlSafe(value), bold: true }),
  ]);
  return new Paragraph({ children });
}

const HEADING_STYLES = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;

export function heading(level: 1 | 2 | 3, text: string, options: { pageBreakBefore?: boolean } = {}): Paragraph {
  const rightToLeft = readsRightToLeft(text);
  return new Paragraph({
    heading: HEADING_STYLES[level],
    bidirectional: rightToLeft || undefined,
    pageBreakBefore: options.pageBreakBefore,
    children: runsOf(text, {}, rightToLeft),
  });
}

/** A quieter paragraph for "nothing here" notes and bylines. */
export function note(text: string): Paragraph {
  return paragraph(text, { italics: true, color: '666666' });
}
