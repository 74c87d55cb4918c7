import { and, asc, eq } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import type { AttachmentRow } from './schemas';
import { creationOrder } from '../../db/creation-order';

export function listAttachments(db: Db, cardId: string): Promise<AttachmentRow[]> {
  const { attachments } = tablesOf(db);
  return db
    .select()
    .from(attachments)
    .where(eq(attachments.cardId, cardId))
    .orderBy(asc(attachments.createdAt), asc(creationOrder(attachments)));
}

export async function findAttachment(db: Db, cardId: string, id: string): Promise<AttachmentRow | undefined> {
  const { attachments } = tablesOf(db);
  const [row] = await db
    .select()
    .from(attachments)
    .where(and(eq(attachments.id, id), eq(attachments.cardId, cardId)));
  return row;
}

export async function insertAttachment(db: Db, values: Schema['attachments']['$inferInsert']): Promise<AttachmentRow> {
  const { attachments } = tablesOf(db);
  const [row] = await db.insert(attachments).values(values).returning();
  return row!;
}

export async function deleteAttachment(db: Db, id: string): Promise<void> {
  const { attachments } = tablesOf(db);
  await db.delete(attachments).where(eq(attachments.id, id));
}
