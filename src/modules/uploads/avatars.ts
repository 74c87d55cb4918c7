import type { Config } from '../../config';
import type { Database, Db } from '../../db/database';
import { encodeAvatar, type EncodedImage } from './images';
import { optionalFile, type FormFields } from './multipart';
import { deleteFileRow, fileRefFromUrl, permanentFileUrl, removeBlob, saveFileIn, type FileRef, type FileRow } from './storage';

export const AVATAR_CONTAINER = 'avatars';

interface AvatarDeps {
  config: Pick<Config, 'filesDir' | 'publicUrl' | 'secret'>;
  database: Database;
}

/** The re-encoded `avatar` part, or null when the form has none (which removes the avatar). */
export async function readAvatar(form: FormFields, field = 'avatar'): Promise<EncodedImage | null> {
  const part = optionalFile(form, field);
  if (!part) return null;
  return encodeAvatar(new Uint8Array(await part.arrayBuffer()), field);
}

/**
 * Sets or removes an avatar in one transaction: stores the new image, lets `store` write its URL
 * (null to remove) and drops the previous avatar file. Blobs are removed only once the outcome is
 * known, so a failed write leaves the old avatar in place and no stray file behind.
 */
export async function replaceAvatar<T>(
  deps: AvatarDeps,
  input: {
    userId: string;
    image: EncodedImage | null;
    /** Reads the current avatar URL inside the transaction. */
    current: (tx: Db) => Promise<string | null>;
    store: (tx: Db, url: string | null) => Promise<T>;
  },
): Promise<T> {
  const blobs: { saved?: FileRow; previous?: FileRef } = {};
  let result: T;
  try {
    result = await deps.database.transaction(async (tx) => {
      const previous = ownAvatar(deps.config, await input.current(tx));
      if (input.image) {
        blobs.saved = await saveFileIn(tx, deps.config, {
          userId: input.userId,
          name: `avatar.${input.image.extension}`,
          mimetype: input.image.mimetype,
          data: input.image.data,
          container: AVATAR_CONTAINER,
        });
      }
      const stored = await input.store(tx, blobs.saved ? permanentFileUrl(deps.config, blobs.saved) : null);
      if (previous) {
        await deleteFileRow(tx, previous);
        blobs.previous = previous;
      }
      return stored;
    });
  } catch (err) {
    if (blobs.saved) removeBlob(deps.config, blobs.saved);
    throw err;
  }
  if (blobs.previous) removeBlob(deps.config, blobs.previous);
  return result;
}

/** Only avatars this service stored are deleted; an avatar URL from elsewhere is left alone. */
function ownAvatar(config: Pick<Config, 'publicUrl'>, url: string | null) {
  const ref = fileRefFromUrl(config, url);
  return ref?.container === AVATAR_CONTAINER ? ref : null;
}
