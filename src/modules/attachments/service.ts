import type { Config } from '../../config';
import { notFound } from '../../http/errors';
import { write, type WriteDeps } from '../events/recorder';
import { ownUpload } from '../uploads/storage';
import { loadTarget, onCard, type CardRef } from '../cards/feedback-target';
import { authorize } from '../access/rules';
import { deleteAttachment, findAttachment, insertAttachment, listAttachments as listAttachmentRows } from './repo';
import { toAttachment, type AttachmentOutput, type AttachmentRow, type CreateAttachmentInput } from './schemas';

export type AttachmentDeps = WriteDeps & { config: Pick<Config, 'publicUrl' | 'secret'> };

function found(row: AttachmentRow | undefined): AttachmentRow {
  if (!row) throw notFound('Attachment');
  return row;
}

export function listAttachments(deps: AttachmentDeps, ref: CardRef): AttachmentOutput[] {
  const { card } = loadTarget(deps.database.db, ref);
  return listAttachmentRows(deps.database.db, card.id).map((row) => toAttachment(row, deps.config));
}

export function getAttachment(deps: AttachmentDeps, ref: CardRef, attachmentId: string): AttachmentOutput {
  const { card } = loadTarget(deps.database.db, ref);
  return toAttachment(found(findAttachment(deps.database.db, card.id, attachmentId)), deps.config);
}

/**
 * Attaches a file the caller uploaded. Only their own uploads qualify: a key seen in someone
 * else's link must not let a file travel into another workshop under a new name.
 */
export function attachFile(deps: AttachmentDeps, ref: CardRef, input: CreateAttachmentInput): AttachmentOutput {
  const { db } = deps.database;
  return write(deps, (_tx, changes) => {
    const { access, card } = loadTarget(db, ref);
    authorize(access, 'attachment');
    const file = ownUpload(db, ref.userId, { container: input.blob.container, key: input.blob.key });
    const row = insertAttachment(db, {
      workshopId: ref.workshopId,
      cardId: card.id,
      userId: ref.userId,
      name: input.name ?? file.name,
      fileKey: file.key,
      container: file.container,
      mimetype: file.mimetype,
      size: file.size,
    });
    const attachment = toAttachment(row, deps.config);
    changes.record({ workshopId: ref.workshopId, action: 'addAttachment', userId: ref.userId, change: { attachment: onCard(attachment, card.id) } });
    return attachment;
  });
}

/** Detaches the file; the upload itself stays, since a merge may have left other attachments on it. */
export function removeAttachment(deps: AttachmentDeps, ref: CardRef, attachmentId: string): void {
  const { db } = deps.database;
  write(deps, (_tx, changes) => {
    const { access, card } = loadTarget(db, ref);
    const row = found(findAttachment(db, card.id, attachmentId));
    authorize(access, 'attachment');
    authorize(access, { manage_feedback: { authorId: row.userId } });
    deleteAttachment(db, row.id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'removeAttachment',
      userId: ref.userId,
      change: { attachment: onCard(toAttachment(row, deps.config), card.id) },
    });
  });
}
