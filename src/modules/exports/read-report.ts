import type { Database, Db } from '../../db/database';
import { t } from '../../i18n/messages';
import { exportNamesAuthor } from './export-reader';
import { exportRowsOf, membersWithNames, namesOfUsers } from './repo';
import { SCALES } from '../../domain/criteria';
import type { ExportReport, ReportCard } from './report';

/**
 * Reads everything a report shows on one snapshot of the database, so the export is one consistent
 * moment of the workshop even while people keep writing. Card coordinates and zones come from
 * SQL's copy of the canvas document, which every stored document change keeps current.
 */
export function readReport(database: Database, workshopId: string): Promise<ExportReport | null> {
  return database.snapshot(async (db) => {
    const rows = await exportRowsOf(db, workshopId);
    if (!rows) return null;
    const { workshop, canvas } = rows;
    const memberRows = await membersWithNames(db, workshopId);

    const {
      steps: stepRows,
      criteria: criterionRows,
      sections: sectionRows,
      cards: cardRows,
      votes: voteRows,
      ratings: ratingRows,
      items: itemRows,
      comments: commentRows,
      zones: zoneRows,
    } = rows;
    // Votes and ratings name their people (their display is a matter of §6, not of authorship);
    // cards, comments and items only when an export may name their author.
    const named = [cardRows, itemRows, commentRows].map((list) => list.filter(exportNamesAuthor));
    const { language } = workshop;
    const names = await authorNames(db, language, memberRows, [voteRows, ratingRows, ...named]);
    const deletedUser = t(language, 'export.deleted_user');
    const nameOf = (userId: string | null) => (userId === null ? deletedUser : (names.get(userId) ?? ''));
    const authorOf = (row: Parameters<typeof exportNamesAuthor>[0]) =>
      exportNamesAuthor(row) ? nameOf(row.userId) : null;

    const tallies = new Map<
      string,
      { count: number; positive: number; negative: number; comments: number; items: number; ratings: number }
    >();
    const tallyOf = (cardId: string) => {
      let tally = tallies.get(cardId);
      if (!tally)
        tallies.set(cardId, (tally = { count: 0, positive: 0, negative: 0, comments: 0, items: 0, ratings: 0 }));
      return tally;
    };
    for (const vote of voteRows) {
      const tally = tallyOf(vote.cardId);
      tally.count += 1;
      if (vote.value > 0) tally.positive += vote.value;
      else tally.negative -= vote.value;
    }
    const ratingSums = new Map<string, { sum: number; count: number }>();
    for (const rating of ratingRows) {
      tallyOf(rating.cardId).ratings += 1;
      const key = `${rating.cardId}\n${rating.criteriumId}`;
      const sum = ratingSums.get(key) ?? { sum: 0, count: 0 };
      sum.sum += rating.value;
      sum.count += 1;
      ratingSums.set(key, sum);
    }
    for (const comment of commentRows) tallyOf(comment.cardId).comments += 1;
    for (const item of itemRows) tallyOf(item.cardId).items += 1;

    const clusters = cardRows.filter((card) => card.type === 'cluster');
    const ideasOf = new Map<string, typeof cardRows>();
    for (const card of cardRows) {
      if (card.type !== 'idea' || !card.parentId) continue;
      const list = ideasOf.get(card.parentId) ?? [];
      list.push(card);
      ideasOf.set(card.parentId, list);
    }
    const reportCard = (card: (typeof cardRows)[number], cluster: (typeof cardRows)[number] | null): ReportCard => {
      const tally = tallyOf(card.id);
      const ratingAverages: Record<string, number> = {};
      for (const criterion of criterionRows) {
        const sum = ratingSums.get(`${card.id}\n${criterion.id}`);
        if (sum) ratingAverages[criterion.id] = sum.sum / sum.count;
      }
      return {
        id: card.id,
        shortId: String(card.number),
        type: card.type,
        title: card.title,
        content: card.content,
        color: card.color,
        aside: card.aside,
        clusterId: cluster?.id ?? null,
        clusterTitle: cluster?.title ?? '',
        position: card.position,
        x: card.x,
        y: card.y,
        author: authorOf(card),
        createdAt: card.createdAt,
        score: tally.positive - tally.negative,
        voteCount: tally.count,
        positivePoints: tally.positive,
        negativePoints: tally.negative,
        ratingAverages,
        ratingCount: tally.ratings,
        commentCount: tally.comments,
        itemCount: tally.items,
      };
    };
    const reportCards: ReportCard[] = [];
    for (const cluster of clusters) {
      reportCards.push(reportCard(cluster, null));
      for (const idea of ideasOf.get(cluster.id) ?? []) reportCards.push(reportCard(idea, cluster));
    }

    return {
      generatedAt: new Date().toISOString(),
      workshop: {
        id: workshop.id,
        title: workshop.title,
        description: workshop.description,
        createdAt: workshop.createdAt,
        state: workshop.state,
        language,
        facilitators: memberRows.filter((m) => m.role === 'facilitator').map((m) => shownName(language, m)),
        participantCount: memberRows.filter((m) => m.role === 'participant').length,
        currentStepId: workshop.currentStepId,
      },
      steps: stepRows.map((step, index) => ({
        id: step.id,
        number: index + 1,
        name: step.name,
        instructions: step.instructions,
      })),
      criteria: criterionRows.map((criterion) => {
        const values = [...(SCALES[criterion.scale] ?? [])];
        return { id: criterion.id, title: criterion.title, values, min: values[0] ?? 0, max: values.at(-1) ?? 0 };
      }),
      sections: sectionRows.map((section) => ({ id: section.id, title: section.title })),
      cards: reportCards,
      votes: voteRows.map((vote) => ({
        cardId: vote.cardId,
        user: nameOf(vote.userId),
        value: vote.value,
        createdAt: vote.createdAt,
      })),
      ratings: ratingRows.map((rating) => ({
        cardId: rating.cardId,
        criterionId: rating.criteriumId,
        user: nameOf(rating.userId),
        value: rating.value,
        createdAt: rating.createdAt,
      })),
      items: itemRows.map((item) => ({
        cardId: item.cardId,
        sectionId: item.sectionId,
        user: authorOf(item),
        content: item.content,
        createdAt: item.createdAt,
      })),
      comments: commentRows.map((comment) => ({
        cardId: comment.cardId,
        user: authorOf(comment),
        content: comment.content,
        createdAt: comment.createdAt,
      })),
      canvas: canvas
        ? {
            name: canvas.name,
            cols: canvas.backgroundCols,
            rows: canvas.backgroundRows,
            zones: zoneRows.map((zone) => ({
              id: zone.id,
              name: zone.name,
              x: zone.x,
              y: zone.y,
              cols: zone.cols,
              rows: zone.rows,
              clusterId: zone.clusterId,
            })),
          }
        : null,
    };
  });
}

/**
 * Names of the members and of every author of the rows, by user id. Authors who have left the
 * workshop still wrote what they wrote: their names are read too.
 */
async function authorNames(
  db: Db,
  language: string,
  members: ReadonlyArray<{ userId: string; name: string; guest: boolean }>,
  authored: ReadonlyArray<ReadonlyArray<{ userId: string | null }>>,
): Promise<Map<string, string>> {
  const names = new Map(members.map((member) => [member.userId, shownName(language, member)]));
  const departed = new Set<string>();
  for (const rows of authored)
    for (const row of rows) if (row.userId !== null && !names.has(row.userId)) departed.add(row.userId);
  for (const user of await namesOfUsers(db, departed))
    names.set(user.id, user.deleted ? t(language, 'export.deleted_user') : shownName(language, user));
  return names;
}

/** A name as documents show it: a guest's marked as such (docs/api.md#guests). */
function shownName(language: string, user: { name: string; guest: boolean }): string {
  return user.guest ? t(language, 'export.guest_name', { name: user.name }) : user.name;
}
