/*
 * Bearer tokens: issued inside the transaction that signs someone in, and resolved on every
 * request through one cache the REST routes, Socket.IO and the sync endpoint share
 * (docs/api.md#authentication-and-errors).
 */
import type { Config } from '../../config';
import type { Database, Db } from '../../db/database';
import { identityEpoch } from '../../db/identity-epoch';
import type { UserRow } from '../../http/env';
import type { ResolvedSession, SessionAuth } from '../../http/session-auth';
import { hashToken, newToken } from './crypto';
import { insertAuthToken, slideToken, tokenExpiry, tokenWithUser, type SignInMethod } from './repo';

/** Sliding expiry is written at most this often per token, not on every request. */
const SLIDE_EVERY_MS = 3600 * 1000;

/** A guest's token lasts 7 days after its last use (docs/api.md#guests); an account's, `TOKEN_TTL_MS`. */
export const GUEST_TOKEN_TTL_MS = 7 * 24 * 3600 * 1000;

/** How long a token lasts after its last use: 7 days for a guest's. */
function tokenTtlMs(config: Pick<Config, 'tokenTtlMs'>, user: Pick<UserRow, 'guest'>): number {
  return user.guest ? Math.min(GUEST_TOKEN_TTL_MS, config.tokenTtlMs) : config.tokenTtlMs;
}

/**
 * Where a new session comes from: `method` says how the person proved who they are (organizations
 * requiring single sign-on refuse `password` sessions), `identityId` which provider identity an
 * `oidc` one came by, and `userAgent` the `User-Agent` of the request that opened it (the list of
 * sessions shows it).
 */
export interface SessionOrigin {
  method?: SignInMethod;
  identityId?: string | null;
  userAgent?: string | null;
}

/** Kept of a `User-Agent`: enough to tell a browser from another. */
const USER_AGENT_MAX = 400;

/** A new bearer token for the user, inside the caller's transaction. */
export async function issueToken(
  tx: Db,
  config: Config,
  user: Pick<UserRow, 'id' | 'guest'>,
  origin: SessionOrigin = {},
): Promise<string> {
  const token = newToken();
  const now = new Date();
  await insertAuthToken(tx, {
    userId: user.id,
    tokenHash: hashToken(token),
    lastUsedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + tokenTtlMs(config, user)).toISOString(),
    method: origin.method ?? 'password',
    identityId: origin.identityId ?? null,
    userAgent: origin.userAgent?.slice(0, USER_AGENT_MAX) || null,
  });
  return token;
}

/** The token of an `Authorization: Bearer <token>` header; null for anything else. */
function bearerToken(header: string | null | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/** The app's one `SessionAuth` (`http/session-auth.ts`), over the store's tokens and users. */
export function sessionAuth(deps: { config: Config; database: Database }): SessionAuth {
  const authenticate = tokenAuthenticator(deps);
  return {
    bearerToken,
    authenticate,
    async sessionOf(authorization) {
      const token = bearerToken(authorization);
      return token ? authenticate(token) : null;
    },
    async isAlive(tokenHash) {
      const expiresAt = await tokenExpiry(deps.database.db, tokenHash);
      return expiresAt !== undefined && Date.parse(expiresAt) > Date.now();
    },
  };
}

/** Resolved tokens kept in memory, at most this many (least recently used dropped first). */
const TOKEN_CACHE_ENTRIES = 10_000;

interface ResolvedToken {
  user: UserRow;
  tokenHash: string;
  expiresAt: number;
  lastUsedAt: number;
  /** `auth_state.epoch` when resolved: a logout or a user change anywhere moves it. */
  epoch: number;
  method: SignInMethod;
}

/**
 * Resolves a bearer token to its user, sliding its expiry. Runs on every request, so resolved
 * tokens are kept in memory and checked against `auth_state.epoch` (one indexed read): triggers
 * move the epoch when any token is deleted or any user changes, on any connection or instance
 * sharing the database, so a logout takes effect at once everywhere and a renamed user is read again.
 * A token is looked up again when its expiry is due to slide (at most hourly).
 */
function tokenAuthenticator(deps: { config: Config; database: Database }) {
  const { database } = deps;
  const currentEpoch = identityEpoch(database.db);
  const resolved = new Map<string, ResolvedToken>();

  return async (token: string): Promise<ResolvedSession | null> => {
    const tokenHash = hashToken(token);
    const now = Date.now();
    const epoch = await currentEpoch();
    const hit = resolved.get(tokenHash);
    if (hit) {
      resolved.delete(tokenHash);
      if (hit.epoch === epoch && hit.expiresAt > now && now - hit.lastUsedAt <= SLIDE_EVERY_MS) {
        resolved.set(tokenHash, hit);
        return { user: hit.user, tokenHash, epoch, method: hit.method };
      }
    }
    const row = await tokenWithUser(database.db, tokenHash);
    if (!row) return null;
    let expiresAt = Date.parse(row.expiresAt);
    let lastUsedAt = Date.parse(row.lastUsedAt);
    if (expiresAt <= now) return null;
    if (now - lastUsedAt > SLIDE_EVERY_MS) {
      expiresAt = now + tokenTtlMs(deps.config, row.user);
      lastUsedAt = now;
      const slid = {
        id: row.tokenId,
        lastUsedAt: new Date(lastUsedAt).toISOString(),
        expiresAt: new Date(expiresAt).toISOString(),
      };
      await database.transaction((tx) => slideToken(tx, slid));
    }
    const { user, method } = row;
    resolved.set(tokenHash, { user, tokenHash, expiresAt, lastUsedAt, epoch, method });
    if (resolved.size > TOKEN_CACHE_ENTRIES) resolved.delete(resolved.keys().next().value!);
    return { user, tokenHash, epoch, method };
  };
}
