import type { ExportReport, ReportComment, ReportItem, ReportSection } from '../../report';
import { cardLabel, clusterGroups, groupBy } from '../report-views';
import { attribution } from '../report-text';
import { MUTED, type PdfWriter } from './writer';

/** One section's items, each with the card it belongs to and who added it. */
export function sectionItems(
  writer: PdfWriter,
  report: ExportReport,
  section: ReportSection,
  items: readonly ReportItem[],
): void {
  if (items.length === 0) {
    writer.note('No items.');
    return;
  }
  const cards = new Map(report.cards.map((card) => [card.id, card]));
  for (const item of items) {
    const card = cards.get(item.cardId);
    writer.keepSpace(30);
    writer.paragraph(item.content, { after: 1 });
    writer.note(
      `${card ? `On ${cardLabel(card)}` : `In ${section.title}`}  \u00b7  ${attribution(item.user, item.createdAt)}`,
      { after: 7 },
    );
  }
}

/** The items of each section, for the section's own part. */
export function itemsOf(report: ExportReport): Map<string, ReportItem[]> {
  return groupBy(report.items, (item) => item.sectionId);
}

function writeComments(writer: PdfWriter, comments: readonly ReportComment[]): void {
  const x = writer.left + 14;
  for (const comment of comments) {
    writer.keepSpace(28);
    writer.paragraph(attribution(comment.user, comment.createdAt), { x, size: 8.5, color: MUTED, after: 1 });
    writer.paragraph(comment.content, { x, after: 6 });
  }
}

/** Comments grouped by card, the cards in board order, each under its cluster. */
export function commentsByCard(writer: PdfWriter, report: ExportReport): void {
  const commentsOf = groupBy(report.comments, (comment) => comment.cardId);
  if (commentsOf.size === 0) {
    writer.note('No comments yet.');
    return;
  }
  for (const { cluster, ideas } of clusterGroups(report)) {
    for (const card of [cluster, ...ideas]) {
      const comments = commentsOf.get(card.id);
      if (!comments) continue;
      writer.keepSpace(60);
      writer.paragraph(cardLabel(card), { size: 10.5, weight: 'bold', after: 1 });
      writer.note(card.type === 'cluster' ? 'Cluster' : `Idea in ${card.clusterTitle}`, { after: 4 });
      writeComments(writer, comments);
      writer.skip(4);
    }
  }
}
