import { and, asc, eq } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import type { CommentRow } from './schemas';
import { creationOrder } from '../../db/creation-order';

/** Oldest first: a card's comments read as a conversation. */
export function listComments(db: Db, cardId: string): Promise<CommentRow[]> {
  const { comments } = tablesOf(db);
  return db
    .select()
    .from(comments)
    .where(eq(comments.cardId, cardId))
    .orderBy(asc(comments.createdAt), asc(creationOrder(comments)));
}

export async function findComment(db: Db, cardId: string, id: string): Promise<CommentRow | undefined> {
  const { comments } = tablesOf(db);
  const [row] = await db
    .select()
    .from(comments)
    .where(and(eq(comments.id, id), eq(comments.cardId, cardId)));
  return row;
}

export async function insertComment(db: Db, values: Schema['comments']['$inferInsert']): Promise<CommentRow> {
  const { comments } = tablesOf(db);
  const [row] = await db.insert(comments).values(values).returning();
  return row!;
}

export async function deleteComment(db: Db, id: string): Promise<void> {
  const { comments } = tablesOf(db);
  await db.delete(comments).where(eq(comments.id, id));
}
