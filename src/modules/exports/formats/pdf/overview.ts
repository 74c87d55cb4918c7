import { t } from '../../../../i18n/messages';
import type { ExportReport } from '../../report';
import { clusterGroups } from '../report-views';
import { formatDate, formatNumber } from '../report-text';
import { MUTED, type PdfWriter } from './writer';

/** Workshop title, dates, facilitators, participants, what the board holds, and the description. */
export function titlePage(writer: PdfWriter, report: ExportReport): void {
  const { workshop } = report;
  const lang = workshop.language;
  writer.y = writer.doc.page.height * 0.22;
  writer.paragraph(workshop.title, { size: 28, weight: 'bold', after: 10 });
  writer.paragraph(t(lang, 'export.report.subtitle', { date: formatDate(lang, report.generatedAt) }), {
    size: 14,
    color: MUTED,
    after: 28,
  });

  const groups = clusterGroups(report);
  const ideaCount = groups.reduce((sum, group) => sum + group.ideas.length, 0);
  const started = formatDate(lang, workshop.createdAt);
  const facts: Array<[string, string]> = [
    [
      t(lang, 'export.fact.workshop'),
      workshop.state === 'archived'
        ? t(lang, 'export.value.started_archived', { date: started })
        : t(lang, 'export.value.started', { date: started }),
    ],
    [t(lang, 'export.fact.facilitators'), workshop.facilitators.join(', ') || t(lang, 'export.value.none')],
    [t(lang, 'export.fact.participants'), formatNumber(lang, workshop.participantCount)],
    [t(lang, 'export.fact.agenda'), t(lang, 'export.value.steps', { count: report.steps.length })],
    [t(lang, 'export.fact.board'), t(lang, 'export.value.board', { clusters: groups.length, ideas: ideaCount })],
    [
      t(lang, 'export.fact.votes'),
      t(lang, 'export.value.votes', { votes: report.votes.length, ratings: report.ratings.length }),
    ],
    [
      t(lang, 'export.fact.notes'),
      t(lang, 'export.value.notes', { items: report.items.length, comments: report.comments.length }),
    ],
  ];
  // The names stand at the start of the lines, the values beside them: mirrored right to left.
  const valueBox = writer.inset(110);
  const nameAt = writer.rightToLeft ? writer.right : writer.left;
  for (const [name, value] of facts) {
    const top = writer.y;
    writer.label(name, nameAt, top, { size: 11, color: MUTED, anchor: writer.rightToLeft ? 'end' : 'start' });
    writer.paragraph(value, { ...valueBox, y: top, size: 11, after: 5 });
  }
  if (workshop.description.trim() !== '') {
    writer.skip(20);
    writer.paragraph(workshop.description, { size: 11 });
  }
}

/** Each step of the agenda with its instructions. */
export function agenda(writer: PdfWriter, report: ExportReport): void {
  const lang = report.workshop.language;
  if (report.steps.length === 0) writer.note(t(lang, 'export.note.no_steps'));
  for (const step of report.steps) {
    writer.heading(`${formatNumber(lang, step.number)}. ${step.name}`, 3);
    if (step.id === report.workshop.currentStepId) writer.note(t(lang, 'export.note.current_step'), { after: 3 });
    if (step.instructions.trim() === '') writer.note(t(lang, 'export.note.no_instructions'));
    else writer.paragraph(step.instructions);
  }
}
