import type { Config } from '../../config';
import type { Database } from '../../db/database';
import type { FileStore } from '../../files/store';
import type { DomainEventBus } from '../../domain/bus';
import { invalid, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { replaceAvatar } from '../uploads/avatars';
import type { EncodedImage } from '../uploads/images';
import { lockUser } from '../../db/user-lock';
import { avatarUrlOf, setAvatarUrl, updateProfile } from './repo';
import { GUEST_NAME_MAX, toUser, type UpdateMeInput, type UserOutput } from './schemas';
import { msg } from '../../i18n/messages';

interface UserDeps {
  config: Config;
  database: Database;
  files: FileStore;
  bus: DomainEventBus;
}

/**
 * PUT /v1/user/me: the name (`display_name` is the spec's member; `name`, the User output's, is
 * accepted too), the locale and the time zone (docs/api.md#languages-and-time-zones), guests
 * included. Members left out keep their value; at least one is needed.
 */
export async function updateMe(
  deps: UserDeps,
  user: Pick<UserRow, 'id' | 'guest'>,
  input: UpdateMeInput,
): Promise<void> {
  const name = input.display_name ?? input.name;
  if (name === undefined && input.locale === undefined && input.time_zone === undefined) {
    throw invalid('display_name', msg('error.users.nothing_to_change'));
  }
  if (user.guest && name !== undefined && name.length > GUEST_NAME_MAX) {
    throw invalid(
      input.display_name !== undefined ? 'display_name' : 'name',
      msg('error.users.guest_name_too_long', { max: GUEST_NAME_MAX }),
    );
  }
  const userId = user.id;
  await deps.database.transaction((tx) =>
    updateProfile(tx, userId, { name, locale: input.locale, timeZone: input.time_zone }),
  );
  // Where people see the name live (presence); the locale and time zone are the person's own.
  if (name !== undefined) deps.bus.emit('profile-changed', { userId });
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
  if (!row) throw notFound('user');
  deps.bus.emit('profile-changed', { userId });
  return toUser(row, deps.config);
}
