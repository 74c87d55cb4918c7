import { and, asc, eq, sql, type Column, type Placeholder, type SQL } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { inList } from '../../db/sql';
import { creationOrder } from '../../db/creation-order';

/*
 * Queries of the feedback on cards: the counts a card's summary shows, and a card's items and
 * ratings with the workshop's sections and criteria they belong to (a card's detail).
 */

/** Which rows an aggregate reads: a workshop's, or a set of cards'. */
type Scope = (table: { workshopId: Column; cardId: Column }) => SQL;

/*
 * One grouped query per aggregate, for a whole workshop or for a set of cards. They run on every
 * card list: the workshop-wide ones are prepared once per connection; those for a set of cards
 * bind the ids as one list (`inList`), whatever their number.
 */
function aggregates(db: Db, scope: Scope, voterId: string | Placeholder) {
  const { attachments, comments, items, voteTallies } = tablesOf(db);
  const count = sql<number>`count(*)`.mapWith(Number);
  return {
    // Scores from the tallies the triggers keep (one row per card and voter), not from every vote.
    score: () =>
      db
        .select({
          cardId: voteTallies.cardId,
          n: sql<number>`sum(${voteTallies.positive} - ${voteTallies.negative})`.mapWith(Number),
        })
        .from(voteTallies)
        .where(scope(voteTallies))
        .groupBy(voteTallies.cardId),
    ownScore: () =>
      db
        .select({
          cardId: voteTallies.cardId,
          n: sql<number>`${voteTallies.positive} - ${voteTallies.negative}`.mapWith(Number),
        })
        .from(voteTallies)
        .where(and(scope(voteTallies), eq(voteTallies.userId, voterId))),
    comments: () =>
      db.select({ cardId: comments.cardId, n: count }).from(comments).where(scope(comments)).groupBy(comments.cardId),
    attachments: () =>
      db
        .select({ cardId: attachments.cardId, n: count })
        .from(attachments)
        .where(scope(attachments))
        .groupBy(attachments.cardId),
    sections: () =>
      db
        .select({ cardId: items.cardId, sectionId: items.sectionId, n: count })
        .from(items)
        .where(scope(items))
        .groupBy(items.cardId, items.sectionId),
  };
}

const statements = preparedPerDb((db: Db) => {
  const { voteTallies } = tablesOf(db);
  const workshop = aggregates(
    db,
    (table) => eq(table.workshopId, sql.placeholder('workshopId')),
    sql.placeholder('userId'),
  );
  return {
    score: named(workshop.score(), 'cards_summary_score'),
    ownScore: named(workshop.ownScore(), 'cards_summary_own_score'),
    comments: named(workshop.comments(), 'cards_summary_comments'),
    attachments: named(workshop.attachments(), 'cards_summary_attachments'),
    sections: named(workshop.sections(), 'cards_summary_sections'),
    voterScores: named(
      db
        .select({
          userId: voteTallies.userId,
          score: sql<number>`${voteTallies.positive} - ${voteTallies.negative}`.mapWith(Number),
        })
        .from(voteTallies)
        .where(eq(voteTallies.cardId, sql.placeholder('cardId'))),
      'cards_voter_scores',
    ),
  };
});

interface Count {
  cardId: string;
  n: number;
}

export interface AggregateRows {
  score: Count[];
  comments: Count[];
  attachments: Count[];
  sections: Array<Count & { sectionId: string }>;
}

/**
 * The rows of a card summary's aggregates (`cardSummaries`): of a whole workshop (prepared), or of
 * the cards in `cardIds`; the score of `voterId`'s votes only, unless null.
 */
export async function summaryRows(
  db: Db,
  workshopId: string,
  voterId: string | null,
  cardIds?: readonly string[],
): Promise<AggregateRows> {
  if (!cardIds) {
    const q = statements(db);
    const params = { workshopId, userId: voterId };
    return {
      score: await (voterId === null ? q.score : q.ownScore).execute(params),
      comments: await q.comments.execute(params),
      attachments: await q.attachments.execute(params),
      sections: await q.sections.execute(params),
    };
  }
  const q = aggregates(db, (table) => inList(db, table.cardId, cardIds), voterId ?? '');
  return {
    score: await (voterId === null ? q.score() : q.ownScore()),
    comments: await q.comments(),
    attachments: await q.attachments(),
    sections: await q.sections(),
  };
}

/** Each voter's score on the card (their tally's positive minus negative). */
export function voterScoresOf(db: Db, cardId: string): Promise<Array<{ userId: string; score: number }>> {
  return statements(db).voterScores.execute({ cardId });
}

const detailQueries = preparedPerDb((db: Db) => {
  const { criteria, items, ratings, sections } = tablesOf(db);
  const workshopId = sql.placeholder('workshopId');
  const cardId = sql.placeholder('cardId');
  return {
    sections: named(
      db
        .select()
        .from(sections)
        .where(eq(sections.workshopId, workshopId))
        .orderBy(asc(sections.position), asc(sections.id)),
      'cards_detail_sections',
    ),
    criteria: named(
      db
        .select()
        .from(criteria)
        .where(eq(criteria.workshopId, workshopId))
        .orderBy(asc(criteria.position), asc(criteria.id)),
      'cards_detail_criteria',
    ),
    items: named(
      db
        .select()
        .from(items)
        .where(eq(items.cardId, cardId))
        .orderBy(asc(items.createdAt), asc(creationOrder(items))),
      'cards_detail_items',
    ),
    ratings: named(
      db
        .select()
        .from(ratings)
        .where(eq(ratings.cardId, cardId))
        .orderBy(asc(ratings.createdAt), asc(creationOrder(ratings))),
      'cards_detail_ratings',
    ),
    ownRatings: named(
      db
        .select()
        .from(ratings)
        .where(and(eq(ratings.cardId, cardId), eq(ratings.userId, sql.placeholder('userId'))))
        .orderBy(asc(ratings.createdAt), asc(creationOrder(ratings))),
      'cards_detail_own_ratings',
    ),
  };
});

/** The workshop's sections, by position. */
export function sectionsInOrder(db: Db, workshopId: string): Promise<Array<Schema['sections']['$inferSelect']>> {
  return detailQueries(db).sections.execute({ workshopId });
}

/** The workshop's criteria, by position. */
export function criteriaInOrder(db: Db, workshopId: string): Promise<Array<Schema['criteria']['$inferSelect']>> {
  return detailQueries(db).criteria.execute({ workshopId });
}

/** The card's items, oldest first. */
export function itemsOfCard(db: Db, cardId: string): Promise<Array<Schema['items']['$inferSelect']>> {
  return detailQueries(db).items.execute({ cardId });
}

/** The card's ratings (only `userId`'s, when given), oldest first. */
export function ratingsOfCard(
  db: Db,
  cardId: string,
  userId?: string,
): Promise<Array<Schema['ratings']['$inferSelect']>> {
  const q = detailQueries(db);
  return userId === undefined ? q.ratings.execute({ cardId }) : q.ownRatings.execute({ cardId, userId });
}
