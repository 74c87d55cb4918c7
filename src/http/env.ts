import type { users } from '../db/schema/index';
import type { ApiTokenIdentity } from '../domain/api-scopes';
import type { Caller } from '../domain/permissions';

export type UserRow = typeof users.$inferSelect;

/** Per-request variables set by middleware. */
export interface AppEnv {
  Variables: {
    /**
     * The authenticated user; set by the authenticate middleware on every /v1 route but the public
     * ones, with the organizations single sign-on keeps this session out of (`Caller`).
     */
    user: UserRow & Caller;
    /** Hash of the bearer token of this request, so logout can revoke exactly it. */
    tokenHash: string;
    /** The identity epoch the token was checked against (`db/identity-epoch.ts`), for cached answers to check theirs. */
    identityEpoch: number;
    /** Set when the request came with an API token (`wsk_…`) rather than a session's token. */
    apiToken?: ApiTokenIdentity;
    /** How the session's token was opened (unset for an API token, whose identity says how its maker's was). */
    signInMethod?: 'password' | 'oidc';
    /** The language this request is answered in, once `requestLanguage` has worked it out. */
    language?: string;
    /** This request's id (`X-Request-Id`), set first for every request: in its log lines and its answer. */
    requestId: string;
    /** Set when the Idempotency-Key answered (a replay, a key in use or reused): the request ran nothing. */
    answeredByKey?: boolean;
    /** The answer kept for this request's Idempotency-Key, replayed once the caller's access is checked again. */
    keptReplay?: () => Response;
  };
}
