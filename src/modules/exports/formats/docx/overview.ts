import { type FileChild, HeadingLevel, Paragraph, TableOfContents } from 'docx';
import type { ExportReport } from '../../report';
import { heading, note, paragraph, runsOf } from './text';
import { formatDate, readsRightToLeft } from '../report-text';

/** Workshop title, report date, facilitators, participants and description. */
export function titlePage(report: ExportReport): FileChild[] {
  const { workshop } = report;
  const rightToLeft = readsRightToLeft(workshop.title);
  const blocks: FileChild[] = [
    new Paragraph({
      heading: HeadingLevel.TITLE,
      bidirectional: rightToLeft || undefined,
      spacing: { before: 2400, after: 240 },
      children: runsOf(workshop.title, {}, rightToLeft),
    }),
    paragraph(`Workshop report of ${formatDate(report.generatedAt)}`, { size: 28, color: '444444' }),
    paragraph(`Facilitators: ${workshop.facilitators.join(', ') || 'none'}`),
    paragraph(`Participants: ${workshop.participantCount}`),
  ];
  if (workshop.state === 'archived') blocks.push(note('This workshop is archived.'));
  if (workshop.description.trim() !== '') blocks.push(new Paragraph({ children: [] }), paragraph(workshop.description));
  return blocks;
}

/**
 * Word's own table of contents field over the first two heading levels (sections, steps and
 * clusters); the document asks Word to update its fields on open, which adds the page numbers.
 */
export function contents(): FileChild[] {
  return [
    new Paragraph({ pageBreakBefore: true, children: runsOf('Contents', { bold: true, size: 32 }) }),
    new TableOfContents('Contents', { hyperlink: true, headingStyleRange: '1-2' }),
  ];
}

export function agenda(report: ExportReport): FileChild[] {
  const blocks: FileChild[] = [heading(1, 'Agenda', { pageBreakBefore: true })];
  if (report.steps.length === 0) blocks.push(note('The agenda has no steps.'));
  for (const step of report.steps) {
    blocks.push(heading(2, `${step.number}. ${step.name}`));
    if (step.id === report.workshop.currentStepId) blocks.push(note('The current step when this report was made.'));
    blocks.push(step.instructions.trim() === '' ? note('No instructions.') : paragraph(step.instructions));
  }
  return blocks;
}
