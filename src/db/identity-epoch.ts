import { eq } from 'drizzle-orm';
import { tablesOf, type Db } from './database';
import { named, preparedPerDb } from './prepared';

/**
 * `auth_state.epoch`: moved by triggers on any token deleted (logout) and any user or organization
 * changed, whichever connection or instance did it (migrations `0003`, `0004`). Whatever keeps
 * answers that show users, organizations or tokens (the token cache, cached workshop answers)
 * keeps the epoch it read them at, and reads them again once it moved.
 */
export const identityEpoch = preparedPerDb((db: Db) => {
  const { authState } = tablesOf(db);
  const query = named(db.select({ epoch: authState.epoch }).from(authState).where(eq(authState.id, 1)), 'identity_epoch');
  return async (): Promise<number> => (await query.execute())[0]?.epoch ?? 0;
});
