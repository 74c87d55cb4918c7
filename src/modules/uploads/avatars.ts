import type { Config } from '../../config';
import type { Database, Db } from '../../db/database';
import { CommitInDoubt } from '../../db/errors';
import type { FileStore } from '../../files/store';
import { encodeAvatar, type EncodedImage } from './images';
import { optionalFile, type FormFields } from './multipart';
import { fileRefFromUrl, permanentFileUrl } from './file-links';
import { AVATAR_CONTAINER, putBlob, removeBlob, type FileRef } from './storage';
import { deleteFileRow, recordFile } from './repo';

interface AvatarDeps {
  config: Pick<Config, 'publicUrl' | 'secret'>;
  database: Database;
  files: FileStore;
}

/** The re-encoded `avatar` part, or null when the form has none (which removes the avatar). */
export async function readAvatar(form: FormFields, field = 'avatar'): Promise<EncodedImage | null> {
  const part = optionalFile(form, field);
  if (!part) return null;
  return encodeAvatar(new Uint8Array(await part.arrayBuffer()), field);
}

/**
 * Sets or removes an avatar in one transaction: the new image is stored first, then the
 * transaction records it, lets `store` write its URL (null to remove) and drops the previous
 * avatar's row. Blobs are removed only once the outcome is known, so a failed write leaves the old
 * avatar in place and no stray file behind.
 */
export async function replaceAvatar<T>(
  deps: AvatarDeps,
  input: {
    userId: string;
    image: EncodedImage | null;
    /**
     * Reads the current avatar URL inside the transaction, having locked the row that holds it
     * (`lockUser`, `lockOrganization`): two replacements at once would otherwise both drop the same
     * previous avatar, and the first one's new file would stay behind, referenced by nothing.
     */
    current: (tx: Db) => Promise<string | null>;
    store: (tx: Db, url: string | null) => Promise<T>;
  },
): Promise<T> {
  const saved = input.image
    ? await putBlob(deps.files, {
        userId: input.userId,
        name: `avatar.${input.image.extension}`,
        mimetype: input.image.mimetype,
        data: input.image.data,
        container: AVATAR_CONTAINER,
      })
    : null;
  const dropped: { previous?: FileRef | null } = {};
  let result: T;
  try {
    result = await deps.database.transaction(async (tx) => {
      const previous = ownAvatar(deps.config, await input.current(tx));
      dropped.previous = previous;
      const row = saved ? await recordFile(tx, saved, saved) : null;
      const stored = await input.store(tx, row ? permanentFileUrl(deps.config, row) : null);
      if (previous) await deleteFileRow(tx, previous);
      return stored;
    });
  } catch (err) {
    // A commit in doubt may have stored the new avatar's row and dropped the previous one: both
    // objects stay, rather than a row pointing at a removed object.
    if (saved && !(err instanceof CommitInDoubt)) await removeBlob(deps.files, saved);
    throw err;
  }
  if (dropped.previous) await removeBlob(deps.files, dropped.previous);
  return result;
}

/** Only avatars this service stored are deleted; an avatar URL from elsewhere is left alone. */
function ownAvatar(config: Pick<Config, 'publicUrl'>, url: string | null) {
  const ref = fileRefFromUrl(config, url);
  return ref?.container === AVATAR_CONTAINER ? ref : null;
}
