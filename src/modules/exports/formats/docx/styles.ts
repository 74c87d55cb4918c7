import type { IStylesOptions } from 'docx';

function headingStyle(level: 1 | 2 | 3, size: number, before: number) {
  return {
    // Word's own names and outline levels: the navigation pane and the table of contents read
    // the outline level, and Word knows "heading 1" as its built-in style.
    name: `heading ${level}`,
    basedOn: 'Normal',
    next: 'Normal',
    paragraph: { outlineLevel: level - 1, keepNext: true, keepLines: true, spacing: { before, after: 120 } },
    run: { bold: true, size, color: '1F3864' },
  };
}

export const REPORT_STYLES: IStylesOptions = {
  default: {
    document: { run: { size: 21 }, paragraph: { spacing: { after: 100 } } },
    title: { run: { size: 52, color: '1F3864' } },
    heading1: headingStyle(1, 32, 360),
    heading2: headingStyle(2, 26, 240),
    heading3: headingStyle(3, 22, 200),
  },
};
