import type { ApiTokenIdentity } from '../domain/api-scopes';
import type { UserRow } from './env';

/**
 * A session token's user and hash. `epoch` is the identity epoch it was checked against
 * (`db/identity-epoch.ts`), for the request's other caches to reuse; `method`, how it was opened.
 */
export interface ResolvedSession {
  user: UserRow;
  tokenHash: string;
  epoch: number;
  method: 'password' | 'oidc';
}

/**
 * Who a bearer token is, and whether it still works: one per app (`AppDeps.auth`), shared by REST,
 * Socket.IO and the sync endpoint, so they share one cache of resolved tokens. `sessionAuth` in
 * `modules/auth/tokens.ts` makes it; what checks a request's token names only this.
 */
export interface SessionAuth {
  /** The token of an `Authorization: Bearer` header; null for anything else. */
  bearerToken(header: string | null | undefined): string | null;
  /** The token's session, sliding its expiry; null for an unknown, expired or revoked token. */
  authenticate(token: string): Promise<ResolvedSession | null>;
  /** `authenticate` for an `Authorization` header: null without a bearer token or with one that does not work. */
  sessionOf(authorization: string | null | undefined): Promise<ResolvedSession | null>;
  /** Whether a token (by hash) still works: not logged out, not expired. */
  isAlive(tokenHash: string): Promise<boolean>;
}

/** Resolves API tokens for REST; `modules/api-tokens/resolve.ts` makes it. Sockets and sync take none. */
export interface ApiTokenAuth {
  /** The user the token acts as, with the token; null for an unknown, expired or revoked token. */
  authenticate(
    token: string,
  ): Promise<{ user: UserRow; tokenHash: string; epoch: number; apiToken: ApiTokenIdentity } | null>;
}
