import { t } from '../../../../i18n/messages';
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
  const lang = report.workshop.language;
  if (items.length === 0) {
    writer.note(t(lang, 'export.note.no_items'));
    return;
  }
  const cards = new Map(report.cards.map((card) => [card.id, card]));
  for (const item of items) {
    const card = cards.get(item.cardId);
    writer.keepSpace(30);
    writer.paragraph(item.content, { after: 1 });
    const where = card
      ? t(lang, 'export.note.on_card', { card: cardLabel(card) })
      : t(lang, 'export.note.in_section', { section: section.title });
    writer.note(`${where}  \u00b7  ${attribution(lang, item.user, item.createdAt)}`, { after: 7 });
  }
}

/** The items of each section, for the section's own part. */
export function itemsOf(report: ExportReport): Map<string, ReportItem[]> {
  return groupBy(report.items, (item) => item.sectionId);
}

function writeComments(writer: PdfWriter, lang: string, comments: readonly ReportComment[]): void {
  const box = writer.inset(14);
  for (const comment of comments) {
    writer.keepSpace(28);
    writer.paragraph(attribution(lang, comment.user, comment.createdAt), {
      ...box,
      size: 8.5,
      color: MUTED,
      after: 1,
    });
    writer.paragraph(comment.content, { ...box, after: 6 });
  }
}

/** Comments grouped by card, the cards in board order, each under its cluster. */
export function commentsByCard(writer: PdfWriter, report: ExportReport): void {
  const lang = report.workshop.language;
  const commentsOf = groupBy(report.comments, (comment) => comment.cardId);
  if (commentsOf.size === 0) {
    writer.note(t(lang, 'export.note.no_comments'));
    return;
  }
  for (const { cluster, ideas } of clusterGroups(report)) {
    for (const card of [cluster, ...ideas]) {
      const comments = commentsOf.get(card.id);
      if (!comments) continue;
      writer.keepSpace(60);
      writer.paragraph(cardLabel(card), { size: 10.5, weight: 'bold', after: 1 });
      writer.note(
        card.type === 'cluster'
          ? t(lang, 'export.note.cluster')
          : t(lang, 'export.note.idea_in', { cluster: card.clusterTitle }),
        { after: 4 },
      );
      writeComments(writer, lang, comments);
      writer.skip(4);
    }
  }
}
