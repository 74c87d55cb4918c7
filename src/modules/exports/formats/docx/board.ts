import type { FileChild, Paragraph } from 'docx';
import type { ExportReport, ReportCard, ReportCriterion } from '../../report';
import { cardLabel, clusterGroups, clusterScore, middleOf, placeOnTwoByTwo, topIdeas } from '../report-views';
import { type Cell, type Column, dataTable } from './tables';
import { factsParagraph, heading, note, paragraph } from './text';
import { countOf, formatAverage } from '../report-text';

function criterionColumns(report: ExportReport): Column[] {
  return report.criteria.map((criterion) => ({ title: criterion.title, weight: 1.4 }));
}

function averageCells(report: ExportReport, idea: ReportCard): string[] {
  return report.criteria.map((criterion) => formatAverage(idea.ratingAverages[criterion.id]));
}

function ideaCell(idea: ReportCard): Paragraph[] {
  const cell = [paragraph(idea.title, { bold: true })];
  if (idea.content.trim() !== '') cell.push(paragraph(idea.content));
  if (idea.aside) cell.push(note('Set aside'));
  return cell;
}

/** Each cluster with a table of its ideas: score, votes and the average rating on each criterion. */
export function clusters(report: ExportReport): FileChild[] {
  const blocks: FileChild[] = [heading(1, 'Clusters', { pageBreakBefore: true })];
  const groups = clusterGroups(report);
  if (groups.length === 0) blocks.push(note('No clusters yet.'));
  const columns: Column[] = [
    { title: '#', weight: 0.8 },
    { title: 'Idea', weight: 6 },
    { title: 'Score', weight: 1.1 },
    { title: 'Votes', weight: 1.1 },
    ...criterionColumns(report),
  ];
  for (const group of groups) {
    const { cluster, ideas } = group;
    blocks.push(heading(2, cluster.title));
    if (cluster.content.trim() !== '') blocks.push(paragraph(cluster.content));
    blocks.push(
      factsParagraph([
        ['Ideas', String(ideas.length)],
        ['Total score', String(clusterScore(group))],
      ]),
    );
    if (ideas.length === 0) {
      blocks.push(note('No ideas in this cluster.'));
      continue;
    }
    const rows = ideas.map((idea): Cell[] => [
      idea.shortId,
      ideaCell(idea),
      String(idea.score),
      String(idea.voteCount),
      ...averageCells(report, idea),
    ]);
    blocks.push(dataTable(columns, rows));
  }
  return blocks;
}

function topIdeasTable(report: ExportReport): FileChild[] {
  const ranked = topIdeas(report);
  if (ranked.length === 0) return [note('No idea has votes yet.')];
  const columns: Column[] = [
    { title: 'Rank', weight: 0.9 },
    { title: 'Idea', weight: 4.5 },
    { title: 'Cluster', weight: 2.5 },
    { title: 'Score', weight: 1.1 },
    { title: 'Votes', weight: 1.1 },
    ...criterionColumns(report),
  ];
  const rows = ranked.map(({ rank, idea }): Cell[] => [
    String(rank),
    cardLabel(idea),
    idea.clusterTitle,
    String(idea.score),
    String(idea.voteCount),
    ...averageCells(report, idea),
  ]);
  return [dataTable(columns, rows)];
}

function splitOf(criterion: ReportCriterion): string {
  return `${middleOf(criterion)} on ${criterion.min}–${criterion.max} for ${criterion.title}`;
}

function twoByTwo(report: ExportReport, first: ReportCriterion, second: ReportCriterion): FileChild[] {
  const { quadrants, unrated } = placeOnTwoByTwo(report, first, second);
  const level = (high: boolean) => (high ? 'high' : 'low');
  const rows = quadrants.map(({ highFirst, highSecond, ideas }): Cell[] => [
    [
      paragraph(`${level(highFirst)} ${first.title} / ${level(highSecond)} ${second.title}`, { bold: true }),
      note(countOf(ideas.length, 'idea')),
    ],
    ideas.length === 0
      ? [note('None')]
      : ideas.map((idea) =>
          paragraph(
            `${cardLabel(idea)} (${first.title} ${formatAverage(idea.ratingAverages[first.id])}, ${second.title} ${formatAverage(idea.ratingAverages[second.id])})`,
          ),
        ),
  ]);
  const blocks: FileChild[] = [
    heading(2, `${first.title} and ${second.title}`),
    paragraph(
      `Each idea is placed by its average rating, split at the middle of each scale (${splitOf(first)}, ${splitOf(second)}); ` +
        'an average on the middle counts as high.',
    ),
    dataTable(
      [
        { title: 'Quadrant', weight: 3 },
        { title: 'Ideas', weight: 7 },
      ],
      rows,
    ),
  ];
  if (unrated.length > 0)
    blocks.push(note(`${countOf(unrated.length, 'idea')} not rated on both criteria and not placed.`));
  return blocks;
}

function canvasZones(report: ExportReport): FileChild[] {
  const { canvas } = report;
  if (canvas === null) return [heading(2, 'Canvas'), note('The workshop has no canvas.')];
  const titles = new Map(report.cards.map((card) => [card.id, card.title]));
  const blocks: FileChild[] = [
    heading(2, `Canvas: ${canvas.name}`),
    paragraph(`${canvas.cols} × ${canvas.rows} grid units.`),
  ];
  if (canvas.zones.length === 0) return [...blocks, note('No zones.')];
  const rows = canvas.zones.map((zone): Cell[] => [
    zone.name,
    `${zone.x}, ${zone.y}`,
    `${zone.cols} × ${zone.rows}`,
    zone.clusterId === null ? '–' : (titles.get(zone.clusterId) ?? '–'),
  ]);
  const columns: Column[] = [
    { title: 'Zone', weight: 4 },
    { title: 'Position (x, y)', weight: 2 },
    { title: 'Size (cols × rows)', weight: 2 },
    { title: 'Cluster', weight: 4 },
  ];
  return [...blocks, dataTable(columns, rows)];
}

/** Top ideas, the 2×2 when there are exactly two criteria, and the canvas's zones. */
export function results(report: ExportReport): FileChild[] {
  const blocks: FileChild[] = [
    heading(1, 'Results', { pageBreakBefore: true }),
    heading(2, 'Top ideas'),
    ...topIdeasTable(report),
  ];
  const [first, second] = report.criteria;
  if (report.criteria.length === 2 && first && second) blocks.push(...twoByTwo(report, first, second));
  blocks.push(...canvasZones(report));
  return blocks;
}
