import type { ExportReport, ReportCard } from '../../report';
import { clusterScore, type ClusterGroup } from '../report-views';
import { countOf, formatAverage } from '../report-text';
import { MUTED, type PdfWriter } from './writer';

const IDEA_INDENT = 14;

/** Score, votes, averages and counts, as one quiet line. */
function ideaFacts(report: ExportReport, idea: ReportCard): string {
  const facts = [
    `Score ${idea.score}`,
    `${countOf(idea.voteCount, 'vote')} (+${idea.positivePoints} / \u2212${idea.negativePoints})`,
  ];
  for (const criterion of report.criteria)
    facts.push(`${criterion.title} ${formatAverage(idea.ratingAverages[criterion.id])}`);
  if (report.criteria.length > 0) facts.push(countOf(idea.ratingCount, 'rating'));
  if (idea.commentCount > 0) facts.push(countOf(idea.commentCount, 'comment'));
  if (idea.itemCount > 0) facts.push(countOf(idea.itemCount, 'item'));
  if (idea.aside) facts.push('set aside');
  if (idea.author) facts.push(`by ${idea.author}`);
  return facts.join('  \u00b7  ');
}

function writeIdea(writer: PdfWriter, report: ExportReport, idea: ReportCard): void {
  const x = writer.left + IDEA_INDENT;
  writer.keepSpace(40);
  writer.paragraph(`#${idea.shortId}  ${idea.title}`, { x, size: 10.5, weight: 'bold', after: 1 });
  writer.paragraph(ideaFacts(report, idea), { x, size: 8.5, color: MUTED, after: 2 });
  if (idea.content.trim() !== '') writer.paragraph(idea.content, { x, size: 9.5, after: 2 });
  writer.skip(6);
}

/** A cluster's number, facts and description, then each of its ideas. */
export function clusterBlock(writer: PdfWriter, report: ExportReport, group: ClusterGroup): void {
  const { cluster, ideas } = group;
  const facts = [`#${cluster.shortId}`, countOf(ideas.length, 'idea'), `total score ${clusterScore(group)}`];
  if (cluster.color) facts.push(cluster.color);
  if (cluster.aside) facts.push('set aside');
  writer.note(facts.join('  \u00b7  '), { after: 3 });
  if (cluster.content.trim() !== '') writer.paragraph(cluster.content, { after: 4 });
  writer.skip(4);
  if (ideas.length === 0) writer.note('No ideas in this cluster.');
  for (const idea of ideas) writeIdea(writer, report, idea);
}
