import { t } from '../../../../i18n/messages';
import type { ExportReport } from '../../report';
import { cardLabel, topIdeas } from '../report-views';
import { formatAverage, formatNumber } from '../report-text';
import { ticksFor } from './axis';
import { fillOf } from './colors';
import { table } from './table';
import { INK, MUTED, type PdfWriter } from './writer';

const GRID = '#dddddd';

/** Horizontal bars for the best-scored ideas, then the same ideas in a table with full titles. */
export function topIdeasChart(writer: PdfWriter, report: ExportReport): void {
  const lang = report.workshop.language;
  const ranked = topIdeas(report);
  if (ranked.length === 0) {
    writer.note(t(lang, 'export.note.no_votes'));
    return;
  }
  const clusterColors = new Map(report.cards.map((card) => [card.id, card.color]));
  writer.note(t(lang, 'export.note.top_ideas_intro', { count: ranked.length }), { after: 12 });

  const { doc } = writer;
  const labelWidth = 170;
  const plotLeft = writer.left + labelWidth + 8;
  const plotWidth = writer.width - labelWidth - 8 - 34;
  const scores = ranked.map(({ idea }) => idea.score);
  const ticks = ticksFor(Math.min(0, ...scores), Math.max(1, ...scores), 5);
  const low = ticks[0]!;
  const high = ticks[ticks.length - 1]!;
  const xOf = (value: number) => plotLeft + ((value - low) / (high - low)) * plotWidth;
  const rowHeight = 22;
  writer.keepSpace(ranked.length * rowHeight + 50);
  const top = writer.y;
  const axisY = top + ranked.length * rowHeight + 4;

  for (const tick of ticks) {
    doc.moveTo(xOf(tick), top).lineTo(xOf(tick), axisY).lineWidth(0.5).strokeColor(GRID).stroke();
    writer.label(String(tick), xOf(tick), axisY + 4, { size: 8, color: MUTED, anchor: 'middle' });
  }
  ranked.forEach(({ idea }, index) => {
    const rowTop = top + index * rowHeight;
    const zero = xOf(0);
    const end = xOf(idea.score);
    writer.label(cardLabel(idea), plotLeft - 8, rowTop + 6, { size: 9, anchor: 'end', maxWidth: labelWidth });
    doc
      .rect(Math.min(zero, end), rowTop + 4, Math.max(Math.abs(end - zero), 1), rowHeight - 8)
      .fill(fillOf(clusterColors.get(idea.clusterId ?? '') ?? null));
    const valueAt = idea.score < 0 ? end - 4 : end + 4;
    writer.label(String(idea.score), valueAt, rowTop + 6, {
      size: 9,
      weight: 'bold',
      anchor: idea.score < 0 ? 'end' : 'start',
    });
  });
  doc
    .moveTo(xOf(0), top)
    .lineTo(xOf(0), axisY)
    .moveTo(plotLeft, axisY)
    .lineTo(plotLeft + plotWidth, axisY)
    .lineWidth(0.8)
    .strokeColor(INK)
    .stroke();
  writer.label(t(lang, 'export.note.score_axis'), plotLeft + plotWidth / 2, axisY + 18, {
    size: 9,
    weight: 'bold',
    anchor: 'middle',
  });
  writer.y = axisY + 44;

  const shown = report.criteria.slice(0, 3);
  table(
    writer,
    [
      { title: t(lang, 'export.column.rank'), width: 28, align: 'end' },
      { title: t(lang, 'export.column.idea'), wraps: true },
      { title: t(lang, 'export.column.cluster'), width: 90 },
      { title: t(lang, 'export.column.score'), width: 32, align: 'end' },
      { title: t(lang, 'export.column.votes'), width: 32, align: 'end' },
      ...shown.map((criterion) => ({ title: criterion.title, width: 48, align: 'end' as const })),
    ],
    ranked.map(({ rank, idea }) => [
      formatNumber(lang, rank),
      cardLabel(idea),
      idea.clusterTitle,
      formatNumber(lang, idea.score),
      formatNumber(lang, idea.voteCount),
      ...shown.map((criterion) => formatAverage(lang, idea.ratingAverages[criterion.id])),
    ]),
  );
}
