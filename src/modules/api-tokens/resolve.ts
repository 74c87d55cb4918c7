import type { Database } from '../../db/database';
import { identityEpoch } from '../../db/identity-epoch';
import type { ApiScope, ApiTokenIdentity } from '../../domain/api-scopes';
import type { UserRow } from '../../http/env';
import type { ApiTokenAuth } from '../../http/session-auth';
import { hashToken } from '../auth/crypto';
import { actingAdmin, apiTokenWithUser, touchApiToken } from './repo';

/** `last_used_at` is written at most this often per token, so a busy token does not write on every request. */
const TOUCH_EVERY_MS = 60_000;
const CACHE_ENTRIES = 10_000;

interface Resolved {
  user: UserRow;
  apiToken: ApiTokenIdentity;
  expiresAt: number;
  touchedAt: number;
  epoch: number;
}

/**
 * API tokens resolved as session tokens are (`modules/auth/service.ts`): kept in memory against
 * the identity epoch, which a revocation, a user change or an organization member change moves on
 * any instance, so a revoked token stops at once everywhere. An organization's token acts as an
 * admin of that organization: its maker while they are one, else the admin of longest standing.
 */
export function apiTokenAuth(database: Database): ApiTokenAuth {
  const currentEpoch = identityEpoch(database.db);
  const resolved = new Map<string, Resolved>();

  async function read(tokenHash: string, epoch: number): Promise<Resolved | null> {
    const row = await apiTokenWithUser(database.db, tokenHash);
    if (!row || row.token.revokedAt !== null) return null;
    const { token } = row;
    const user = token.organizationId ? await actingAdmin(database.db, token.organizationId, row.user.id) : row.user;
    if (!user) return null;
    return {
      user,
      apiToken: {
        id: token.id,
        organizationId: token.organizationId,
        scopes: token.scopes as ApiScope[],
        // A personal token from before it was recorded is taken as made from a password session.
        signInMethod: token.organizationId ? null : (token.signInMethod ?? 'password'),
      },
      expiresAt: token.expiresAt ? Date.parse(token.expiresAt) : Infinity,
      touchedAt: token.lastUsedAt ? Date.parse(token.lastUsedAt) : 0,
      epoch,
    };
  }

  async function touch(entry: Resolved, now: number): Promise<void> {
    entry.touchedAt = now;
    const at = new Date(now).toISOString();
    const since = new Date(now - TOUCH_EVERY_MS).toISOString();
    await database.transaction((tx) => touchApiToken(tx, entry.apiToken.id, at, since));
  }

  return {
    async authenticate(token) {
      const tokenHash = hashToken(token);
      const now = Date.now();
      const epoch = await currentEpoch();
      let entry = resolved.get(tokenHash);
      resolved.delete(tokenHash);
      if (!entry || entry.epoch !== epoch) entry = (await read(tokenHash, epoch)) ?? undefined;
      if (!entry || entry.expiresAt <= now) return null;
      if (now - entry.touchedAt >= TOUCH_EVERY_MS) await touch(entry, now);
      resolved.set(tokenHash, entry);
      if (resolved.size > CACHE_ENTRIES) resolved.delete(resolved.keys().next().value!);
      return { user: entry.user, tokenHash, epoch, apiToken: entry.apiToken };
    },
  };
}
