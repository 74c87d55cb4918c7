import type { FileChild, Paragraph } from 'docx';
import { t } from '../../../../i18n/messages';
import type { ExportReport, ReportCard, ReportCriterion } from '../../report';
import { cardLabel, clusterGroups, clusterScore, middleOf, placeOnTwoByTwo, topIdeas } from '../report-views';
import { type Cell, type Column, dataTable } from './tables';
import type { DocxText } from './text';
import { formatAverage, formatNumber } from '../report-text';

function criterionColumns(report: ExportReport): Column[] {
  return report.criteria.map((criterion) => ({ title: criterion.title, weight: 1.4 }));
}

function averageCells(report: ExportReport, idea: ReportCard): string[] {
  const lang = report.workshop.language;
  return report.criteria.map((criterion) => formatAverage(lang, idea.ratingAverages[criterion.id]));
}

function ideaCell(text: DocxText, lang: string, idea: ReportCard): Paragraph[] {
  const cell = [text.paragraph(idea.title, { bold: true })];
  if (idea.content.trim() !== '') cell.push(text.paragraph(idea.content));
  if (idea.aside) cell.push(text.note(t(lang, 'export.idea.set_aside_note')));
  return cell;
}

/** Each cluster with a table of its ideas: score, votes and the average rating on each criterion. */
export function clusters(text: DocxText, report: ExportReport): FileChild[] {
  const lang = report.workshop.language;
  const blocks: FileChild[] = [text.heading(1, t(lang, 'export.heading.clusters'), { pageBreakBefore: true })];
  const groups = clusterGroups(report);
  if (groups.length === 0) blocks.push(text.note(t(lang, 'export.note.no_clusters')));
  const columns: Column[] = [
    { title: '#', weight: 0.8 },
    { title: t(lang, 'export.column.idea'), weight: 6 },
    { title: t(lang, 'export.column.score'), weight: 1.1 },
    { title: t(lang, 'export.column.votes'), weight: 1.1 },
    ...criterionColumns(report),
  ];
  for (const group of groups) {
    const { cluster, ideas } = group;
    blocks.push(text.heading(2, cluster.title));
    if (cluster.content.trim() !== '') blocks.push(text.paragraph(cluster.content));
    blocks.push(
      text.factsParagraph([
        [t(lang, 'export.idea.ideas'), formatNumber(lang, ideas.length)],
        [t(lang, 'export.idea.total_score_label'), formatNumber(lang, clusterScore(group))],
      ]),
    );
    if (ideas.length === 0) {
      blocks.push(text.note(t(lang, 'export.note.no_ideas_in_cluster')));
      continue;
    }
    const rows = ideas.map((idea): Cell[] => [
      idea.shortId,
      ideaCell(text, lang, idea),
      formatNumber(lang, idea.score),
      formatNumber(lang, idea.voteCount),
      ...averageCells(report, idea),
    ]);
    blocks.push(dataTable(text, columns, rows));
  }
  return blocks;
}

function topIdeasTable(text: DocxText, report: ExportReport): FileChild[] {
  const lang = report.workshop.language;
  const ranked = topIdeas(report);
  if (ranked.length === 0) return [text.note(t(lang, 'export.note.no_votes'))];
  const columns: Column[] = [
    { title: t(lang, 'export.column.rank'), weight: 0.9 },
    { title: t(lang, 'export.column.idea'), weight: 4.5 },
    { title: t(lang, 'export.column.cluster'), weight: 2.5 },
    { title: t(lang, 'export.column.score'), weight: 1.1 },
    { title: t(lang, 'export.column.votes'), weight: 1.1 },
    ...criterionColumns(report),
  ];
  const rows = ranked.map(({ rank, idea }): Cell[] => [
    formatNumber(lang, rank),
    cardLabel(idea),
    idea.clusterTitle,
    formatNumber(lang, idea.score),
    formatNumber(lang, idea.voteCount),
    ...averageCells(report, idea),
  ]);
  return [dataTable(text, columns, rows)];
}

function splitOf(lang: string, criterion: ReportCriterion): string {
  return t(lang, 'export.note.split', {
    middle: formatNumber(lang, middleOf(criterion)),
    min: criterion.min,
    max: criterion.max,
    criterion: criterion.title,
  });
}

function twoByTwo(text: DocxText, report: ExportReport, first: ReportCriterion, second: ReportCriterion): FileChild[] {
  const lang = report.workshop.language;
  const { quadrants, unrated } = placeOnTwoByTwo(report, first, second);
  const level = (high: boolean) => (high ? 'high' : 'low');
  const average = (idea: ReportCard, criterion: ReportCriterion) =>
    t(lang, 'export.idea.average', {
      criterion: criterion.title,
      average: formatAverage(lang, idea.ratingAverages[criterion.id]),
    });
  const rows = quadrants.map(({ highFirst, highSecond, ideas }): Cell[] => [
    [
      text.paragraph(
        t(lang, 'export.note.quadrant_row', {
          first_level: level(highFirst),
          first: first.title,
          second_level: level(highSecond),
          second: second.title,
        }),
        { bold: true },
      ),
      text.note(t(lang, 'export.note.ideas_count', { count: ideas.length })),
    ],
    ideas.length === 0
      ? [text.note(t(lang, 'export.note.none'))]
      : ideas.map((idea) => text.paragraph(`${cardLabel(idea)} (${average(idea, first)}, ${average(idea, second)})`)),
  ]);
  const blocks: FileChild[] = [
    text.heading(2, t(lang, 'export.heading.two_criteria', { first: first.title, second: second.title })),
    text.paragraph(
      t(lang, 'export.note.two_by_two_intro', {
        first_split: splitOf(lang, first),
        second_split: splitOf(lang, second),
      }),
    ),
    dataTable(
      text,
      [
        { title: t(lang, 'export.column.quadrant'), weight: 3 },
        { title: t(lang, 'export.column.ideas'), weight: 7 },
      ],
      rows,
    ),
  ];
  if (unrated.length > 0) blocks.push(text.note(t(lang, 'export.note.not_placed', { count: unrated.length })));
  return blocks;
}

function canvasZones(text: DocxText, report: ExportReport): FileChild[] {
  const lang = report.workshop.language;
  const { canvas } = report;
  if (canvas === null)
    return [text.heading(2, t(lang, 'export.heading.canvas')), text.note(t(lang, 'export.note.no_canvas'))];
  const titles = new Map(report.cards.map((card) => [card.id, card.title]));
  const blocks: FileChild[] = [
    text.heading(2, t(lang, 'export.heading.canvas_named', { name: canvas.name })),
    text.paragraph(t(lang, 'export.note.canvas_grid', { cols: canvas.cols, rows: canvas.rows })),
  ];
  if (canvas.zones.length === 0) return [...blocks, text.note(t(lang, 'export.note.no_zones_short'))];
  const rows = canvas.zones.map((zone): Cell[] => [
    zone.name,
    `${zone.x}, ${zone.y}`,
    `${zone.cols} × ${zone.rows}`,
    zone.clusterId === null ? '–' : (titles.get(zone.clusterId) ?? '–'),
  ]);
  const columns: Column[] = [
    { title: t(lang, 'export.column.zone'), weight: 4 },
    { title: t(lang, 'export.column.position'), weight: 2 },
    { title: t(lang, 'export.column.size'), weight: 2 },
    { title: t(lang, 'export.column.cluster'), weight: 4 },
  ];
  return [...blocks, dataTable(text, columns, rows)];
}

/** Top ideas, the 2×2 when there are exactly two criteria, and the canvas's zones. */
export function results(text: DocxText, report: ExportReport): FileChild[] {
  const lang = report.workshop.language;
  const blocks: FileChild[] = [
    text.heading(1, t(lang, 'export.heading.results'), { pageBreakBefore: true }),
    text.heading(2, t(lang, 'export.heading.top_ideas')),
    ...topIdeasTable(text, report),
  ];
  const [first, second] = report.criteria;
  if (report.criteria.length === 2 && first && second) blocks.push(...twoByTwo(text, report, first, second));
  blocks.push(...canvasZones(text, report));
  return blocks;
}
