import type { Config } from '../../config';
import type { Database } from '../../db/database';
import type { FileStore } from '../../files/store';
import type { DomainEventBus } from '../../domain/bus';
import { invalid, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { replaceAvatar } from '../uploads/avatars';
import type { EncodedImage } from '../uploads/images';
import { lockUser } from '../../db/user-lock';
import { avatarUrlOf, renameUser, setAvatarUrl } from './repo';
import { GUEST_NAME_MAX, toUser, type UpdateMeInput, type UserOutput } from './schemas';

interface UserDeps {
  config: Config;
  database: Database;
  files: FileStore;
  bus: DomainEventBus;
}

/** `display_name` is the spec's member; `name` (the User output's member) is accepted too. */
export async function updateMe(
  deps: UserDeps,
  user: Pick<UserRow, 'id' | 'guest'>,
  input: UpdateMeInput,
): Promise<void> {
  const name = input.display_name ?? input.name;
  if (name === undefined) throw invalid('display_name', 'display_name is required.');
  if (user.guest && name.length > GUEST_NAME_MAX) {
    throw invalid(
      input.display_name !== undefined ? 'display_name' : 'name',
      `A guest's name has at most ${GUEST_NAME_MAX} characters.`,
    );
  }
  const userId = user.id;
  await deps.database.transaction((tx) => renameUser(tx, userId, name));
  deps.bus.emit('profile-changed', { userId });
}

export async function setMyAvatar(deps: UserDeps, userId: string, image: EncodedImage | null): Promise<UserOutput> {
  const row = await replaceAvatar(deps, {
    userId,
    image,
    current: async (tx) => {
      // Locked before it is read: another replacement waits, then drops the avatar this one stores.
      await lockUser(tx, userId);
      return avatarUrlOf(tx, userId);
    },
    store: (tx, url) => setAvatarUrl(tx, userId, url),
  });
  if (!row) throw notFound('User');
  deps.bus.emit('profile-changed', { userId });
  return toUser(row, deps.config);
}
