import type { FileChild } from 'docx';
import type { ExportReport, ReportComment } from '../../report';
import { cardLabel, clusterGroups, groupBy } from '../report-views';
import { type Cell, dataTable } from './tables';
import { heading, note, paragraph } from './text';
import { attribution, formatInstant } from '../report-text';

/** Each section with a table of its items and the card each belongs to. */
export function itemsBySection(report: ExportReport): FileChild[] {
  const blocks: FileChild[] = [heading(1, 'Items', { pageBreakBefore: true })];
  if (report.sections.length === 0) blocks.push(note('The workshop has no sections.'));
  const cards = new Map(report.cards.map((card) => [card.id, card]));
  const itemsOf = groupBy(report.items, (item) => item.sectionId);
  for (const section of report.sections) {
    blocks.push(heading(2, section.title));
    const items = itemsOf.get(section.id) ?? [];
    if (items.length === 0) {
      blocks.push(note('No items.'));
      continue;
    }
    const rows = items.map((item): Cell[] => {
      const card = cards.get(item.cardId);
      return [card ? cardLabel(card) : '–', item.content, item.user ?? '–', formatInstant(item.createdAt)];
    });
    const columns = [
      { title: 'Card', weight: 3 },
      { title: 'Item', weight: 5 },
      { title: 'By', weight: 2 },
      { title: 'Added', weight: 2 },
    ];
    blocks.push(dataTable(columns, rows));
  }
  return blocks;
}

function commentBlocks(comments: readonly ReportComment[]): FileChild[] {
  return comments.flatMap((comment) => [
    note(attribution(comment.user, comment.createdAt)),
    paragraph(comment.content),
  ]);
}

/**
 * Comments grouped by card under the card's cluster: a cluster's own comments sit under its
 * heading, each commented idea gets a heading of its own below.
 */
export function commentsByCard(report: ExportReport): FileChild[] {
  const blocks: FileChild[] = [heading(1, 'Comments', { pageBreakBefore: true })];
  const commentsOf = groupBy(report.comments, (comment) => comment.cardId);
  let written = 0;
  for (const { cluster, ideas } of clusterGroups(report)) {
    const commented = ideas.filter((idea) => commentsOf.has(idea.id));
    const own = commentsOf.get(cluster.id);
    if (!own && commented.length === 0) continue;
    blocks.push(heading(2, cluster.title));
    if (own) {
      blocks.push(...commentBlocks(own));
      written += own.length;
    }
    for (const idea of commented) {
      const comments = commentsOf.get(idea.id)!;
      blocks.push(heading(3, cardLabel(idea)), ...commentBlocks(comments));
      written += comments.length;
    }
  }
  if (written === 0) blocks.push(note('No comments yet.'));
  return blocks;
}
