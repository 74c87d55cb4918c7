import { t } from '../../../../i18n/messages';
import type { ExportReport, ReportCard, ReportCriterion } from '../../report';
import { middleOf, placeOnTwoByTwo } from '../report-views';
import { formatAverage } from '../report-text';
import { ticksFor } from './axis';
import { fillOf } from './colors';
import { LabelSpace } from './placement';
import { table } from './table';
import { MUTED, type PdfWriter } from './writer';

/** The heading of the 2×2, which says when a workshop has more criteria than it shows. */
export function matrixTitle(lang: string, criteria: readonly ReportCriterion[]): string {
  const [first, second] = criteria;
  const titles = { first: first!.title, second: second!.title };
  return criteria.length > 2
    ? t(lang, 'export.heading.matrix_of_more', { ...titles, count: criteria.length })
    : t(lang, 'export.heading.matrix', titles);
}

/** A criterion's own rating values when they are few, round steps across its range otherwise. */
function scaleTicks(criterion: ReportCriterion): number[] {
  if (criterion.values.length <= 11) return criterion.values;
  return ticksFor(criterion.min, criterion.max, 8).filter((tick) => tick >= criterion.min && tick <= criterion.max);
}

const SPOT_LABEL_WIDTH = 64;

/** The numbers of a spot's ideas, as many as fit, then how many more ("12, 15 +4"). */
function spotLabel(writer: PdfWriter, numbers: readonly string[]): string {
  let shown = numbers[0] ?? '';
  for (let index = 1; index < numbers.length; index += 1) {
    const longer = `${shown}, ${numbers[index]}`;
    const rest = numbers.length - index - 1;
    if (writer.measure(rest > 0 ? `${longer} +${rest}` : longer, { size: 7 }) > SPOT_LABEL_WIDTH)
      return `${shown} +${numbers.length - index}`;
    shown = longer;
  }
  return shown;
}

interface Spot {
  x: number;
  y: number;
  ideas: ReportCard[];
}

/** Ideas with the same two averages share one dot, labelled with all their numbers. */
function spotsOf(ideas: readonly ReportCard[], first: ReportCriterion, second: ReportCriterion): Spot[] {
  const spots = new Map<string, Spot>();
  for (const idea of ideas) {
    const x = idea.ratingAverages[first.id]!;
    const y = idea.ratingAverages[second.id]!;
    const key = `${x.toFixed(2)}|${y.toFixed(2)}`;
    const spot = spots.get(key);
    if (spot) spot.ideas.push(idea);
    else spots.set(key, { x, y, ideas: [idea] });
  }
  return [...spots.values()];
}

interface Plot {
  left: number;
  top: number;
  size: number;
  xOf: (value: number) => number;
  yOf: (value: number) => number;
}

function plotFor(writer: PdfWriter, first: ReportCriterion, second: ReportCriterion): Plot {
  const size = Math.min(writer.width - 60, 360);
  const left = writer.left + 50;
  const top = writer.y + 6;
  const pad = 14;
  const along = (value: number, criterion: ReportCriterion) =>
    criterion.max > criterion.min
      ? pad + ((value - criterion.min) / (criterion.max - criterion.min)) * (size - 2 * pad)
      : size / 2;
  return {
    left,
    top,
    size,
    xOf: (value) => left + along(value, first),
    yOf: (value) => top + size - along(value, second),
  };
}

/** The square, the middle lines, the quadrants' names, the scales and the axis titles. */
function drawFrame(
  writer: PdfWriter,
  lang: string,
  plot: Plot,
  first: ReportCriterion,
  second: ReportCriterion,
  space: LabelSpace,
): void {
  const { doc } = writer;
  const { left, top, size, xOf, yOf } = plot;
  doc.rect(left, top, size, size).fillAndStroke('#fbfbfb', '#999999');
  doc.save().dash(3, { space: 3 });
  doc.moveTo(xOf(middleOf(first)), top).lineTo(xOf(middleOf(first)), top + size);
  doc.moveTo(left, yOf(middleOf(second))).lineTo(left + size, yOf(middleOf(second)));
  doc.lineWidth(0.8).strokeColor('#888888').stroke().restore();
  for (const highFirst of [false, true]) {
    for (const highSecond of [false, true]) {
      const name = t(lang, 'export.note.quadrant', {
        first_level: highFirst ? 'high' : 'low',
        first: first.title,
        second_level: highSecond ? 'high' : 'low',
        second: second.title,
      });
      const [x, y] = [highFirst ? left + size - 5 : left + 5, highSecond ? top + 4 : top + size - 11];
      const width = writer.label(name, x, y, {
        size: 7,
        color: MUTED,
        anchor: highFirst ? 'end' : 'start',
        maxWidth: size / 2 - 10,
      });
      space.reserve({ x: highFirst ? x - width : x, y, width, height: 8 });
    }
  }
  for (const value of scaleTicks(first))
    writer.label(String(value), xOf(value), top + size + 4, { size: 8, color: MUTED, anchor: 'middle' });
  for (const value of scaleTicks(second))
    writer.label(String(value), left - 4, yOf(value) - 4, { size: 8, color: MUTED, anchor: 'end' });
  const axisTitle = { size: 9.5, weight: 'bold', anchor: 'middle', maxWidth: size } as const;
  writer.label(
    t(lang, 'export.column.average', { criterion: first.title }),
    left + size / 2,
    top + size + 18,
    axisTitle,
  );
  const upright: [number, number] = [left - 36, top + size / 2];
  doc.save().rotate(-90, { origin: upright });
  writer.label(t(lang, 'export.column.average', { criterion: second.title }), upright[0], upright[1], axisTitle);
  doc.restore();
}

/** A dot per spot in its cluster's colour, then the labels that find room beside their dot. */
function drawSpots(writer: PdfWriter, report: ExportReport, spots: readonly Spot[], space: LabelSpace): void {
  const colors = new Map(report.cards.map((card) => [card.id, card.color]));
  for (const spot of spots) {
    const radius = spot.ideas.length > 1 ? 4 : 3.2;
    writer.doc
      .circle(spot.x, spot.y, radius)
      .fillAndStroke(fillOf(colors.get(spot.ideas[0]!.clusterId ?? '') ?? null), '#333333');
    space.reserve({ x: spot.x - radius, y: spot.y - radius, width: 2 * radius, height: 2 * radius });
  }
  for (const spot of spots) {
    const text = spotLabel(
      writer,
      spot.ideas.map((idea) => idea.shortId),
    );
    const width = writer.measure(text, { size: 7 });
    const box = space.claimBeside(spot.x, spot.y, width);
    if (box) writer.label(text, box.x, box.y, { size: 7 });
  }
}

/**
 * The impact/effort picture: each idea rated on both criteria placed by its two averages, with
 * lines at the middle of each scale, then a legend from the dots' numbers to the ideas' titles.
 */
export function matrixChart(
  writer: PdfWriter,
  report: ExportReport,
  first: ReportCriterion,
  second: ReportCriterion,
): void {
  const lang = report.workshop.language;
  const { quadrants, unrated } = placeOnTwoByTwo(report, first, second);
  const placedIds = new Set(quadrants.flatMap((quadrant) => quadrant.ideas.map((idea) => idea.id)));
  const placed = report.cards.filter((card) => placedIds.has(card.id));
  writer.note(
    t(lang, 'export.note.matrix_intro', {
      first: first.title,
      first_min: first.min,
      first_max: first.max,
      second: second.title,
      second_min: second.min,
      second_max: second.max,
    }),
    { after: 10 },
  );
  const plot = plotFor(writer, first, second);
  const space = new LabelSpace({ x: plot.left, y: plot.top, width: plot.size, height: plot.size });
  drawFrame(writer, lang, plot, first, second, space);
  const spots = spotsOf(placed, first, second).map((spot) => ({ ...spot, x: plot.xOf(spot.x), y: plot.yOf(spot.y) }));
  drawSpots(writer, report, spots, space);

  writer.y = plot.top + plot.size + 40;
  if (placed.length === 0) writer.note(t(lang, 'export.note.not_rated'));
  if (unrated.length > 0) writer.note(t(lang, 'export.note.not_placed', { count: unrated.length }), { after: 6 });
  if (placed.length === 0) return;
  writer.skip(6);
  table(
    writer,
    [
      { title: '#', width: 32, align: 'end' },
      { title: t(lang, 'export.column.idea'), wraps: true },
      { title: first.title, width: 60, align: 'end' },
      { title: second.title, width: 60, align: 'end' },
    ],
    placed.map((idea) => [
      idea.shortId,
      idea.title,
      formatAverage(lang, idea.ratingAverages[first.id]),
      formatAverage(lang, idea.ratingAverages[second.id]),
    ]),
  );
}
