import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { attachments } from '../../db/schema/index';
import type { AttachmentRow } from './schemas';

export function listAttachments(db: Db, cardId: string): AttachmentRow[] {
  return db.select().from(attachments).where(eq(attachments.cardId, cardId)).orderBy(asc(attachments.createdAt), asc(sql`rowid`)).all();
}

export function findAttachment(db: Db, cardId: string, id: string): AttachmentRow | undefined {
  return db.select().from(attachments).where(and(eq(attachments.id, id), eq(attachments.cardId, cardId))).get();
}

export function insertAttachment(db: Db, values: typeof attachments.$inferInsert): AttachmentRow {
  return db.insert(attachments).values(values).returning().get();
}

export function deleteAttachment(db: Db, id: string): void {
  db.delete(attachments).where(eq(attachments.id, id)).run();
}
