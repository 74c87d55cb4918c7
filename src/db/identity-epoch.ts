import { sqliteOf, type Db } from './client';
import { preparedPerDb } from './prepared';

/**
 * `auth_state.epoch`: moved by triggers on any token deleted (logout) and any user or organization
 * changed, whichever connection or instance did it (migrations `0003`, `0004`). Whatever keeps
 * answers that show users, organizations or tokens (the token cache, cached workshop answers)
 * keeps the epoch it read them at, and reads them again once it moved.
 */
export const identityEpoch = preparedPerDb((db: Db) => {
  const statement = sqliteOf(db).prepare<[], number>('SELECT epoch FROM auth_state WHERE id = 1').pluck();
  return (): number => statement.get() ?? 0;
});
