import { type FileChild, HeadingLevel, Paragraph, TableOfContents } from 'docx';
import { t } from '../../../../i18n/messages';
import type { ExportReport } from '../../report';
import { type DocxText, runsOf } from './text';
import { formatDate, formatNumber, readsRightToLeft } from '../report-text';

/** Workshop title, report date, facilitators, participants and description. */
export function titlePage(text: DocxText, report: ExportReport): FileChild[] {
  const { workshop } = report;
  const lang = workshop.language;
  const rightToLeft = readsRightToLeft(workshop.title);
  const blocks: FileChild[] = [
    new Paragraph({
      heading: HeadingLevel.TITLE,
      bidirectional: text.rightToLeft || rightToLeft || undefined,
      spacing: { before: 2400, after: 240 },
      children: runsOf(workshop.title, {}, rightToLeft),
    }),
    text.paragraph(t(lang, 'export.report.subtitle', { date: formatDate(lang, report.generatedAt) }), {
      size: 28,
      color: '444444',
    }),
    text.paragraph(
      t(lang, 'export.report.facilitators', {
        names: workshop.facilitators.join(', ') || t(lang, 'export.value.none'),
      }),
    ),
    text.paragraph(t(lang, 'export.report.participants', { count: workshop.participantCount })),
  ];
  if (workshop.state === 'archived') blocks.push(text.note(t(lang, 'export.report.archived')));
  if (workshop.description.trim() !== '')
    blocks.push(
      new Paragraph({ bidirectional: text.rightToLeft || undefined, children: [] }),
      text.paragraph(workshop.description),
    );
  return blocks;
}

/**
 * Word's own table of contents field over the first two heading levels (sections, steps and
 * clusters); the document asks Word to update its fields on open, which adds the page numbers.
 */
export function contents(text: DocxText, lang: string): FileChild[] {
  const title = t(lang, 'export.heading.contents');
  return [
    new Paragraph({
      pageBreakBefore: true,
      bidirectional: text.rightToLeft || undefined,
      children: runsOf(title, { bold: true, size: 32 }, text.rightToLeft),
    }),
    new TableOfContents(title, { hyperlink: true, headingStyleRange: '1-2' }),
  ];
}

export function agenda(text: DocxText, report: ExportReport): FileChild[] {
  const lang = report.workshop.language;
  const blocks: FileChild[] = [text.heading(1, t(lang, 'export.heading.agenda'), { pageBreakBefore: true })];
  if (report.steps.length === 0) blocks.push(text.note(t(lang, 'export.note.no_steps')));
  for (const step of report.steps) {
    blocks.push(text.heading(2, `${formatNumber(lang, step.number)}. ${step.name}`));
    if (step.id === report.workshop.currentStepId) blocks.push(text.note(t(lang, 'export.note.current_step')));
    blocks.push(
      step.instructions.trim() === ''
        ? text.note(t(lang, 'export.note.no_instructions'))
        : text.paragraph(step.instructions),
    );
  }
  return blocks;
}
