import { eq } from 'drizzle-orm';
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import { nowIso } from '../../db/columns';
import { users } from '../../db/schema/index';
import { AppError, invalid, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { sendConfirmation } from '../auth/service';
import { replaceAvatar } from '../uploads/avatars';
import type { EncodedImage } from '../uploads/images';
import { toUser, type UpdateMeInput, type UserOutput } from './schemas';

interface UserDeps {
  config: Config;
  database: { db: Db };
}

/** `display_name` is the spec's member; `name` (the User output's member) is accepted too. */
export function updateMe(deps: UserDeps, userId: string, input: UpdateMeInput): void {
  const name = input.display_name ?? input.name;
  if (name === undefined) throw invalid('display_name', 'display_name is required.');
  deps.database.db.update(users).set({ name, updatedAt: nowIso() }).where(eq(users.id, userId)).run();
}

export function setMyAvatar(deps: UserDeps, userId: string, image: EncodedImage | null): UserOutput {
  const row = replaceAvatar(deps, {
    userId,
    image,
    current: (tx) => tx.select({ url: users.avatarUrl }).from(users).where(eq(users.id, userId)).get()?.url ?? null,
    store: (tx, url) => tx.update(users).set({ avatarUrl: url, updatedAt: nowIso() }).where(eq(users.id, userId)).returning().get(),
  });
  if (!row) throw notFound('User');
  return toUser(row, deps.config);
}

/** Mails a fresh confirmation link; a confirmed address has nothing to confirm (409). */
export function resendConfirmation(deps: UserDeps, userId: string): void {
  deps.database.db.transaction((tx) => {
    const user: UserRow | undefined = tx.select().from(users).where(eq(users.id, userId)).get();
    if (!user) throw notFound('User');
    if (user.confirmedAt) throw new AppError('conflict', 'This e-mail address is already confirmed.');
    sendConfirmation(tx, deps.config, user);
  }, { behavior: 'immediate' });
}
