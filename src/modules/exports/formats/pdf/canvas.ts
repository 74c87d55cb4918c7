import { t } from '../../../../i18n/messages';
import type { ExportReport, ReportCanvas } from '../../report';
import { cardLabel } from '../report-views';
import { fillOf } from './colors';
import { LabelSpace } from './placement';
import { table } from './table';
import type { PdfWriter } from './writer';

const MAX_HEIGHT = 420;

/**
 * The canvas to scale: its zones as labelled rectangles in their cluster's colour, the placed
 * clusters as squares with their number and the placed ideas as dots, then the zones as a table.
 */
export function canvasDrawing(writer: PdfWriter, report: ExportReport, canvas: ReportCanvas): void {
  const lang = report.workshop.language;
  const placed = report.cards.filter((card) => card.x !== null && card.y !== null);
  writer.note(
    t(lang, 'export.note.canvas_intro', { cols: canvas.cols, rows: canvas.rows, zones: canvas.zones.length }),
    { after: 10 },
  );
  const { doc } = writer;
  const cols = Math.max(canvas.cols, 1);
  const rows = Math.max(canvas.rows, 1);
  const unit = Math.min(writer.width / cols, Math.min(MAX_HEIGHT, writer.bottom - writer.y - 60) / rows);
  const width = cols * unit;
  const height = rows * unit;
  const left = writer.left + (writer.width - width) / 2;
  const top = writer.y;

  doc.rect(left, top, width, height).fill('#fafafa');
  // A faint grid, no denser than one line every 6 points.
  const step = Math.max(1, Math.ceil(6 / unit));
  for (let col = step; col < cols; col += step)
    doc.moveTo(left + col * unit, top).lineTo(left + col * unit, top + height);
  for (let row = step; row < rows; row += step)
    doc.moveTo(left, top + row * unit).lineTo(left + width, top + row * unit);
  doc.lineWidth(0.3).strokeColor('#e4e4e4').stroke();
  doc.rect(left, top, width, height).lineWidth(0.8).strokeColor('#999999').stroke();

  const cards = new Map(report.cards.map((card) => [card.id, card]));
  const zoneColor = (clusterId: string | null) =>
    fillOf(clusterId === null ? null : (cards.get(clusterId)?.color ?? null));
  const space = new LabelSpace({ x: left, y: top, width, height });
  doc.save().rect(left, top, width, height).clip();
  for (const zone of canvas.zones) {
    const [x, y, w, h] = [left + zone.x * unit, top + zone.y * unit, zone.cols * unit, zone.rows * unit];
    doc.rect(x, y, w, h).fillOpacity(0.22).fill(zoneColor(zone.clusterId)).fillOpacity(1);
    doc.rect(x, y, w, h).lineWidth(1).strokeColor(zoneColor(zone.clusterId)).stroke();
  }
  const clusters = placed.filter((card) => card.type === 'cluster');
  for (const card of placed) {
    const x = left + card.x! * unit;
    const y = top + card.y! * unit;
    if (card.type === 'idea') doc.circle(x, y, 1.8).fill('#555555');
  }
  for (const card of clusters) {
    const [x, y] = [left + card.x! * unit, top + card.y! * unit];
    doc.rect(x - 4, y - 4, 8, 8).fillAndStroke(fillOf(card.color), '#333333');
    space.reserve({ x: x - 4, y: y - 4, width: 8, height: 8 });
  }
  // Zone names go on top, on a light backing, so the cards under them do not hide them.
  for (const zone of canvas.zones) {
    const [x, y, w] = [left + zone.x * unit, top + zone.y * unit, zone.cols * unit];
    const name = writer.fit(zone.name, Math.max(w - 8, 8), { size: 9, weight: 'bold' });
    const nameWidth = writer.measure(name, { size: 9, weight: 'bold' });
    doc
      .rect(x + 2, y + 2, nameWidth + 4, 13)
      .fillOpacity(0.85)
      .fill('#ffffff')
      .fillOpacity(1);
    writer.label(name, x + 4, y + 4, { size: 9, weight: 'bold' });
    space.reserve({ x: x + 2, y: y + 2, width: nameWidth + 4, height: 13 });
  }
  for (const card of clusters) {
    const [x, y] = [left + card.x! * unit, top + card.y! * unit];
    const text = `#${card.shortId}`;
    const textWidth = writer.measure(text, { size: 7 });
    const box = space.claimBeside(x, y, textWidth);
    if (box) writer.label(text, box.x, box.y, { size: 7 });
  }
  doc.restore();
  writer.y = top + height + 12;

  const unplaced = report.cards.length - placed.length;
  if (unplaced > 0) writer.note(t(lang, 'export.note.cards_not_placed', { count: unplaced }), { after: 6 });
  if (canvas.zones.length === 0) {
    writer.note(t(lang, 'export.note.no_zones'));
    return;
  }
  table(
    writer,
    [
      { title: t(lang, 'export.column.zone'), wraps: true },
      { title: t(lang, 'export.column.position'), width: 80, align: 'end' },
      { title: t(lang, 'export.column.size'), width: 100, align: 'end' },
      { title: t(lang, 'export.column.cluster'), width: 120 },
    ],
    canvas.zones.map((zone) => {
      const cluster = zone.clusterId === null ? undefined : cards.get(zone.clusterId);
      return [
        zone.name,
        `${zone.x}, ${zone.y}`,
        `${zone.cols} \u00d7 ${zone.rows}`,
        cluster ? cardLabel(cluster) : '\u2013',
      ];
    }),
  );
}
