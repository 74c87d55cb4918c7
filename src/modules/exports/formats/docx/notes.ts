import type { FileChild } from 'docx';
import { t } from '../../../../i18n/messages';
import type { ExportReport, ReportComment } from '../../report';
import { cardLabel, clusterGroups, groupBy } from '../report-views';
import { type Cell, dataTable } from './tables';
import type { DocxText } from './text';
import { attribution, formatInstant } from '../report-text';

/** Each section with a table of its items and the card each belongs to. */
export function itemsBySection(text: DocxText, report: ExportReport): FileChild[] {
  const lang = report.workshop.language;
  const blocks: FileChild[] = [text.heading(1, t(lang, 'export.heading.items'), { pageBreakBefore: true })];
  if (report.sections.length === 0) blocks.push(text.note(t(lang, 'export.note.no_sections')));
  const cards = new Map(report.cards.map((card) => [card.id, card]));
  const itemsOf = groupBy(report.items, (item) => item.sectionId);
  for (const section of report.sections) {
    blocks.push(text.heading(2, section.title));
    const items = itemsOf.get(section.id) ?? [];
    if (items.length === 0) {
      blocks.push(text.note(t(lang, 'export.note.no_items')));
      continue;
    }
    const rows = items.map((item): Cell[] => {
      const card = cards.get(item.cardId);
      return [card ? cardLabel(card) : '–', item.content, item.user ?? '–', formatInstant(lang, item.createdAt)];
    });
    const columns = [
      { title: t(lang, 'export.column.card'), weight: 3 },
      { title: t(lang, 'export.column.item'), weight: 5 },
      { title: t(lang, 'export.column.by'), weight: 2 },
      { title: t(lang, 'export.column.added'), weight: 2 },
    ];
    blocks.push(dataTable(text, columns, rows));
  }
  return blocks;
}

function commentBlocks(text: DocxText, lang: string, comments: readonly ReportComment[]): FileChild[] {
  return comments.flatMap((comment) => [
    text.note(attribution(lang, comment.user, comment.createdAt)),
    text.paragraph(comment.content),
  ]);
}

/**
 * Comments grouped by card under the card's cluster: a cluster's own comments sit under its
 * heading, each commented idea gets a heading of its own below.
 */
export function commentsByCard(text: DocxText, report: ExportReport): FileChild[] {
  const lang = report.workshop.language;
  const blocks: FileChild[] = [text.heading(1, t(lang, 'export.heading.comments'), { pageBreakBefore: true })];
  const commentsOf = groupBy(report.comments, (comment) => comment.cardId);
  let written = 0;
  for (const { cluster, ideas } of clusterGroups(report)) {
    const commented = ideas.filter((idea) => commentsOf.has(idea.id));
    const own = commentsOf.get(cluster.id);
    if (!own && commented.length === 0) continue;
    blocks.push(text.heading(2, cluster.title));
    if (own) {
      blocks.push(...commentBlocks(text, lang, own));
      written += own.length;
    }
    for (const idea of commented) {
      const comments = commentsOf.get(idea.id)!;
      blocks.push(text.heading(3, cardLabel(idea)), ...commentBlocks(text, lang, comments));
      written += comments.length;
    }
  }
  if (written === 0) blocks.push(text.note(t(lang, 'export.note.no_comments')));
  return blocks;
}
