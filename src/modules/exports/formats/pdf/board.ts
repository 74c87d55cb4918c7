import { t } from '../../../../i18n/messages';
import type { ExportReport, ReportCard } from '../../report';
import { clusterScore, type ClusterGroup } from '../report-views';
import { formatAverage, formatNumber } from '../report-text';
import { MUTED, type PdfWriter } from './writer';

const IDEA_INDENT = 14;

/** Score, votes, averages and counts, as one quiet line. */
function ideaFacts(report: ExportReport, idea: ReportCard): string {
  const lang = report.workshop.language;
  const facts = [
    t(lang, 'export.idea.score', { score: formatNumber(lang, idea.score) }),
    t(lang, 'export.idea.votes', {
      count: idea.voteCount,
      positive: formatNumber(lang, idea.positivePoints),
      negative: formatNumber(lang, idea.negativePoints),
    }),
  ];
  for (const criterion of report.criteria)
    facts.push(
      t(lang, 'export.idea.average', {
        criterion: criterion.title,
        average: formatAverage(lang, idea.ratingAverages[criterion.id]),
      }),
    );
  if (report.criteria.length > 0) facts.push(t(lang, 'export.idea.ratings', { count: idea.ratingCount }));
  if (idea.commentCount > 0) facts.push(t(lang, 'export.idea.comments', { count: idea.commentCount }));
  if (idea.itemCount > 0) facts.push(t(lang, 'export.idea.items', { count: idea.itemCount }));
  if (idea.aside) facts.push(t(lang, 'export.idea.set_aside'));
  if (idea.author) facts.push(t(lang, 'export.idea.by', { name: idea.author }));
  return facts.join('  \u00b7  ');
}

function writeIdea(writer: PdfWriter, report: ExportReport, idea: ReportCard): void {
  const box = writer.inset(IDEA_INDENT);
  writer.keepSpace(40);
  writer.paragraph(`#${idea.shortId}  ${idea.title}`, { ...box, size: 10.5, weight: 'bold', after: 1 });
  writer.paragraph(ideaFacts(report, idea), { ...box, size: 8.5, color: MUTED, after: 2 });
  if (idea.content.trim() !== '') writer.paragraph(idea.content, { ...box, size: 9.5, after: 2 });
  writer.skip(6);
}

/** A cluster's number, facts and description, then each of its ideas. */
export function clusterBlock(writer: PdfWriter, report: ExportReport, group: ClusterGroup): void {
  const { cluster, ideas } = group;
  const lang = report.workshop.language;
  const facts = [
    `#${cluster.shortId}`,
    t(lang, 'export.note.ideas_count', { count: ideas.length }),
    t(lang, 'export.idea.total_score', { score: formatNumber(lang, clusterScore(group)) }),
  ];
  if (cluster.color) facts.push(cluster.color);
  if (cluster.aside) facts.push(t(lang, 'export.idea.set_aside'));
  writer.note(facts.join('  \u00b7  '), { after: 3 });
  if (cluster.content.trim() !== '') writer.paragraph(cluster.content, { after: 4 });
  writer.skip(4);
  if (ideas.length === 0) writer.note(t(lang, 'export.note.no_ideas_in_cluster'));
  for (const idea of ideas) writeIdea(writer, report, idea);
}
