import type { ExportReport } from '../../report';
import { clusterGroups } from '../report-views';
import { countOf, formatDate } from '../report-text';
import { MUTED, type PdfWriter } from './writer';

/** Workshop title, dates, facilitators, participants, what the board holds, and the description. */
export function titlePage(writer: PdfWriter, report: ExportReport): void {
  const { workshop } = report;
  writer.y = writer.doc.page.height * 0.22;
  writer.paragraph(workshop.title, { size: 28, weight: 'bold', after: 10 });
  writer.paragraph(`Workshop report of ${formatDate(report.generatedAt)}`, { size: 14, color: MUTED, after: 28 });

  const groups = clusterGroups(report);
  const ideaCount = groups.reduce((sum, group) => sum + group.ideas.length, 0);
  const facts: Array<[string, string]> = [
    ['Workshop', `started ${formatDate(workshop.createdAt)}${workshop.state === 'archived' ? ', archived' : ''}`],
    ['Facilitators', workshop.facilitators.join(', ') || 'none'],
    ['Participants', String(workshop.participantCount)],
    ['Agenda', countOf(report.steps.length, 'step')],
    ['Board', `${countOf(groups.length, 'cluster')}, ${countOf(ideaCount, 'idea')}`],
    ['Votes', `${countOf(report.votes.length, 'vote')}, ${countOf(report.ratings.length, 'rating')}`],
    ['Notes', `${countOf(report.items.length, 'item')}, ${countOf(report.comments.length, 'comment')}`],
  ];
  const valueX = writer.left + 110;
  for (const [name, value] of facts) {
    const top = writer.y;
    writer.label(name, writer.left, top, { size: 11, color: MUTED });
    writer.paragraph(value, { x: valueX, y: top, size: 11, after: 5 });
  }
  if (workshop.description.trim() !== '') {
    writer.skip(20);
    writer.paragraph(workshop.description, { size: 11 });
  }
}

/** Each step of the agenda with its instructions. */
export function agenda(writer: PdfWriter, report: ExportReport): void {
  if (report.steps.length === 0) writer.note('The agenda has no steps.');
  for (const step of report.steps) {
    writer.heading(`${step.number}. ${step.name}`, 3);
    if (step.id === report.workshop.currentStepId)
      writer.note('The current step when this report was made.', { after: 3 });
    if (step.instructions.trim() === '') writer.note('No instructions.');
    else writer.paragraph(step.instructions);
  }
}
