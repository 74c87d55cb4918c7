import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { comments } from '../../db/schema/index';
import type { CommentRow } from './schemas';

/** Oldest first: a card's comments read as a conversation. */
export function listComments(db: Db, cardId: string): CommentRow[] {
  return db.select().from(comments).where(eq(comments.cardId, cardId)).orderBy(asc(comments.createdAt), asc(sql`rowid`)).all();
}

export function findComment(db: Db, cardId: string, id: string): CommentRow | undefined {
  return db.select().from(comments).where(and(eq(comments.id, id), eq(comments.cardId, cardId))).get();
}

export function insertComment(db: Db, values: typeof comments.$inferInsert): CommentRow {
  return db.insert(comments).values(values).returning().get();
}

export function deleteComment(db: Db, id: string): void {
  db.delete(comments).where(eq(comments.id, id)).run();
}
