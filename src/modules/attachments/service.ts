import type { Config } from '../../config';
import { notFound } from '../../http/errors';
import { writeWorkshop, type WriteDeps } from '../../db/write';
import { countAgainstWorkshop, type UploadLimits } from '../uploads/quota';
import { ownUpload } from '../uploads/storage';
import { loadTarget, onCard } from '../access/feedback-target';
import type { CardRef } from '../../domain/card-ref';
import { authorize } from '../access/rules';
import { authorFor, authorVisibilityNow } from '../access/visibility';
import { deleteAttachment, findAttachment, insertAttachment, listAttachments as listAttachmentRows } from './repo';
import { toAttachment, type AttachmentRow, type CreateAttachmentInput } from './schemas';
import type { AttachmentOutput } from '../../domain/attachments';

export type AttachmentDeps = WriteDeps & { config: Pick<Config, 'publicUrl' | 'secret'> & UploadLimits };

function found(row: AttachmentRow | undefined): AttachmentRow {
  if (!row) throw notFound('attachment');
  return row;
}

export async function listAttachments(deps: AttachmentDeps, ref: CardRef): Promise<AttachmentOutput[]> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return (await listAttachmentRows(deps.database.db, card.id)).map((row) =>
    authorFor(access, toAttachment(row, deps.config)),
  );
}

export async function getAttachment(
  deps: AttachmentDeps,
  ref: CardRef,
  attachmentId: string,
): Promise<AttachmentOutput> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return authorFor(
    access,
    toAttachment(found(await findAttachment(deps.database.db, card.id, attachmentId)), deps.config),
  );
}

/**
 * Attaches a file the caller uploaded. Only their own uploads qualify: a key seen in someone
 * else's link must not let a file travel into another workshop under a new name.
 */
export function attachFile(
  deps: AttachmentDeps,
  ref: CardRef,
  input: CreateAttachmentInput,
): Promise<AttachmentOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    authorize(access, 'attachment');
    const file = await ownUpload(tx, ref.caller.id, { container: input.blob.container, key: input.blob.key });
    await countAgainstWorkshop(tx, deps.config, file, ref.workshopId);
    const row = await insertAttachment(tx, {
      workshopId: ref.workshopId,
      cardId: card.id,
      userId: ref.caller.id,
      authorVisibility: authorVisibilityNow(access),
      name: input.name ?? file.name,
      fileKey: file.key,
      container: file.container,
      mimetype: file.mimetype,
      size: file.size,
    });
    const attachment = toAttachment(row, deps.config);
    changes.record({
      workshopId: ref.workshopId,
      action: 'addAttachment',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { attachment: onCard(attachment, card.id) },
    });
    return attachment;
  });
}

/** Detaches the file; the upload itself stays, since a merge may have left other attachments on it. */
export async function removeAttachment(deps: AttachmentDeps, ref: CardRef, attachmentId: string): Promise<void> {
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    const row = found(await findAttachment(tx, card.id, attachmentId));
    authorize(access, 'attachment');
    authorize(access, { manage_feedback: { authorId: row.userId } });
    await deleteAttachment(tx, row.id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'removeAttachment',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { attachment: onCard(toAttachment(row, deps.config), card.id) },
    });
  });
}
