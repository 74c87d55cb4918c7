import * as Y from 'yjs';
import type { Database } from '../../db/database';
import { userSummaries } from '../users/repo';
import { exportNamesAuthor } from './export-reader';
import { exportRowsOf, storedDocumentParts } from './repo';
import { NATIVE_FORMAT, NATIVE_VERSION, type NativeDocument } from './native-schema';

/**
 * The native export: every row of the workshop as the document of `native-schema.ts`, read on one
 * snapshot of the database. The Yjs document goes along as one merged update (the stored snapshot
 * plus the updates after it); its values are also in the cards' x/y and the zones.
 */
export function readNative(database: Database, workshopId: string): Promise<NativeDocument | null> {
  return database.snapshot(async (db) => {
    const rows = await exportRowsOf(db, workshopId);
    if (!rows) return null;
    const { workshop, canvas } = rows;
    const {
      steps: stepRows,
      criteria: criterionRows,
      sections: sectionRows,
      votes: voteRows,
      ratings: ratingRows,
      items: itemRows,
      comments: commentRows,
      zones: zoneRows,
    } = rows;
    // By number: the order cards were made, which an import keeps.
    const cardRows = [...rows.cards].sort((a, b) => a.number - b.number);

    // The author of a card, comment or item the export may not name stays out of the file, and
    // out of its users unless they are in it for something else.
    const authorOf = (row: Parameters<typeof exportNamesAuthor>[0]) => (exportNamesAuthor(row) ? row.userId : null);
    const authorIds = new Set<string>();
    for (const row of [...voteRows, ...ratingRows]) authorIds.add(row.userId);
    for (const row of [...cardRows, ...itemRows, ...commentRows]) {
      const author = authorOf(row);
      if (author !== null) authorIds.add(author);
    }
    const userRows = await userSummaries(db, authorIds);
    const document = canvas ? mergedDocument(await storedDocumentParts(db, workshopId)) : null;

    return {
      format: NATIVE_FORMAT,
      version: NATIVE_VERSION,
      exported_at: new Date().toISOString(),
      workshop: {
        id: workshop.id,
        title: workshop.title,
        description: workshop.description,
        state: workshop.state,
        daily_mail: workshop.dailyMail,
        change_step_notifications: workshop.changeStepNotifications,
        force_sync: workshop.forceSync,
        language: workshop.language,
        view: workshop.view,
        vote_limit: {
          positive: workshop.votePositive,
          negative: workshop.voteNegative,
          max_positive: workshop.voteMaxPositive,
          max_negative: workshop.voteMaxNegative,
        },
        current_step_id: workshop.currentStepId,
        last_card_number: workshop.lastCardNumber,
        created_at: workshop.createdAt,
      },
      users: userRows.map((user) => ({ id: user.id, name: user.name, guest: user.guest })),
      steps: stepRows.map((step) => ({
        id: step.id,
        name: step.name,
        instructions: step.instructions,
        prefs: step.prefs,
        view: step.view,
      })),
      criteria: criterionRows.map((criterion) => ({
        id: criterion.id,
        title: criterion.title,
        scale: criterion.scale,
      })),
      sections: sectionRows.map((section) => ({ id: section.id, title: section.title })),
      cards: cardRows.map((card) => ({
        id: card.id,
        short_id: card.number,
        type: card.type,
        title: card.title,
        content: card.content,
        // Stored colors are ones the card routes accepted.
        color: card.color as NativeDocument['cards'][number]['color'],
        aside: card.aside,
        parent_id: card.parentId,
        position: card.position,
        x: card.x,
        y: card.y,
        user_id: authorOf(card),
        author_visibility: card.authorVisibility,
        created_at: card.createdAt,
      })),
      votes: voteRows.map((vote) => ({
        card_id: vote.cardId,
        user_id: vote.userId,
        value: vote.value,
        created_at: vote.createdAt,
      })),
      ratings: ratingRows.map((rating) => ({
        card_id: rating.cardId,
        criterium_id: rating.criteriumId,
        user_id: rating.userId,
        value: rating.value,
        created_at: rating.createdAt,
      })),
      items: itemRows.map((item) => ({
        card_id: item.cardId,
        section_id: item.sectionId,
        user_id: authorOf(item),
        author_visibility: item.authorVisibility,
        content: item.content,
        created_at: item.createdAt,
      })),
      comments: commentRows.map((comment) => ({
        card_id: comment.cardId,
        user_id: authorOf(comment),
        author_visibility: comment.authorVisibility,
        content: comment.content,
        created_at: comment.createdAt,
      })),
      canvas: canvas
        ? {
            name: canvas.name,
            background_id: canvas.backgroundId,
            background: { cols: canvas.backgroundCols, rows: canvas.backgroundRows },
            image: canvas.image,
            zones: zoneRows.map((zone) => ({
              id: zone.id,
              name: zone.name,
              x: zone.x,
              y: zone.y,
              rows: zone.rows,
              cols: zone.cols,
              cluster_id: zone.clusterId,
            })),
            document,
          }
        : null,
    };
  });
}

/** A stored Yjs document (`storedDocumentParts`) as one update, base64; null when it was never stored. */
function mergedDocument(parts: Uint8Array[]): string | null {
  if (parts.length === 0) return null;
  return Buffer.from(Y.mergeUpdates(parts)).toString('base64');
}
