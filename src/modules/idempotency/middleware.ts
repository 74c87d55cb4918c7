import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../config';
import { ungatedStore, type Database } from '../../db/database';
import { isUnavailable } from '../../db/errors';
import { AppError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { API_TOKEN_PREFIX } from '../../domain/api-scopes';
import type { ApiTokenAuth, SessionAuth } from '../../http/session-auth';
import { claimKey, HELD_MS, holdKey, keepAnswer, releaseKey, type KeptAnswer, type KeyRef } from './keys';
import { openAnswer, requestFingerprint, sealAnswer, storedKey } from './sealing';
import { msg } from '../../i18n/messages';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** 1 to 255 visible ASCII characters (docs/api.md#idempotent-writes). */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** The answer's headers a replay repeats; the others (dates, request ids, CORS) are the replay's own. */
const KEPT_HEADERS = ['content-type', 'location'];
/**
 * The writes that need no token, whose keys are the key alone (docs/api.md#idempotent-writes). A request without a
 * token anywhere else is answered 401 by its route: nothing is kept for it, so anonymous requests
 * cannot make the database write for keys.
 */
export const WITHOUT_TOKEN = new Set([
  '/v1/auth/signup',
  '/v1/auth/login',
  '/v1/auth/confirm',
  '/v1/auth/password_reset',
  '/v1/auth/password_reset/confirm',
  '/v1/workshops/join/guest',
]);

type KeyDeps = {
  config: Pick<Config, 'secret'>;
  database: Database;
  auth: SessionAuth;
  /** API tokens (`wsk_…`) keep keys of their own; without it their requests keep none. */
  apiTokens?: ApiTokenAuth;
};

/**
 * `Idempotency-Key` on every write under `/v1` but those in `WITHOUT_TOKEN`, before their routes
 * (docs/api.md#idempotent-writes). Those take `idempotencyKeys` after their own limits instead.
 */
export function idempotentWrites(deps: KeyDeps): MiddlewareHandler<AppEnv> {
  const keyed = idempotencyKeys(deps);
  return (c, next) => (WITHOUT_TOKEN.has(c.req.path) ? next() : keyed(c, next));
}

/**
 * `Idempotency-Key` (docs/api.md#idempotent-writes) on the routes it is placed on: `idempotentWrites` places it
 * before every route that needs a token; each route in `WITHOUT_TOKEN` places it itself, after its
 * limits per address, so a request those refuse (429) never reaches the database for its key,
 * anonymous requests with keys cost the store no more than those without, and the answers kept
 * for them are bounded by the route's own limits. What this answers itself (a replay, a key in
 * use or reused) ran nothing, and says so (`answeredByKey`): limits give its point back.
 *
 * The first request with a key runs
 * and its answer is kept for 24 hours for its user (or the key alone, without a token); a repeat
 * with the same method, path and body gets that answer again with `Idempotent-Replayed: true` and
 * runs nothing; the same key for another request is 422; a repeat while the first still runs is
 * 409 with `Retry-After: 1`. A 5xx or a 429 is not kept, so a retry runs again. The keys live in the
 * database, so they hold across instances (sealed: `sealing.ts`). Requests without the header pay
 * nothing for this.
 */
export function idempotencyKeys(deps: KeyDeps): MiddlewareHandler<AppEnv> {
  // The key's own writes pass the drain's gate: a write that committed keeps its answer, one the
  // gate refused frees its key, so a retry is answered rather than kept waiting on a dead claim.
  const database = ungatedStore(deps.database);
  const { secret } = deps.config;
  return async function idempotentWrite(c, next) {
    const key = c.req.header('idempotency-key');
    if (key === undefined || !WRITES.has(c.req.method)) return next();
    if (!KEY_SHAPE.test(key)) {
      const message = msg('error.idempotency.bad_key');
      throw new AppError('invalid_request', message, { details: [{ path: 'Idempotency-Key', message }] });
    }
    const withoutToken = WITHOUT_TOKEN.has(c.req.path);
    const owner = await ownerOf(deps, c.req.header('authorization'), withoutToken);
    // A token that does not work, or none where one is needed, gets its 401 from the route, and nothing is kept for it.
    if (owner === null || (owner === '' && !withoutToken)) return next();
    const ref: KeyRef = { owner, key: storedKey(secret, key) };

    const { pathname, search } = new URL(c.req.url);
    const fingerprint = requestFingerprint(secret, c.req.method, `${pathname}${search}`, await bodyOf(c.req));
    const claim = await claimKey(database, ref, fingerprint);
    if (claim.kind !== 'claimed') c.set('answeredByKey', true);
    if (claim.kind === 'reused') {
      throw new AppError('idempotency_key_reused', msg('error.idempotency.reused'));
    }
    if (claim.kind === 'running') {
      throw new AppError('idempotency_key_in_use', msg('error.idempotency.in_use'), {
        headers: { 'Retry-After': '1' },
      });
    }
    if (claim.kind === 'done') {
      const kept = () => replay(claim.answer, (sealed) => openAnswer(secret, key, sealed));
      if (withoutToken || !accessChecked(c.req.path)) return kept();
      // Answered by `replayAfterAccess` once the route's checks of the caller passed; nothing is kept again.
      c.set('keptReplay', kept);
      return next();
    }

    const holding = setInterval(() => {
      holdKey(database, ref).catch((err: unknown) => reportKeyFailure('holding', err));
    }, HELD_MS / 3);
    holding.unref();
    try {
      await next();
    } finally {
      clearInterval(holding);
    }
    const { status } = c.res;
    try {
      if (status >= 500 || status === 429) await releaseKey(database, ref);
      else await keepAnswer(database, ref, await answerOf(c.res, (body) => sealAnswer(secret, key, body)));
    } catch (err) {
      // The write itself has happened: its answer goes out. Unkept, the key frees itself once its
      // hold runs out, so a retry after that would run again.
      reportKeyFailure(status >= 500 || status === 429 ? 'releasing' : 'keeping the answer of', err);
    }
  };
}

/**
 * Whether the route's access to a workshop or an organization is checked before a kept answer is
 * replayed: every route needing a token but those under `/v1/auth`, which name neither.
 */
function accessChecked(path: string): boolean {
  return !path.startsWith('/v1/auth/');
}

/**
 * The key's owner: the token's user (an API token: the token itself, `api_token:<id>`, so two
 * integrations of one person never meet), '' without a token, null for a token that does not work. On a
 * route that needs no token, one that does not work (logged out, expired, not a bearer token) is
 * as good as none: the route answers as it would without it, so its key is the key alone, and a
 * retry that still carries that header is replayed rather than run again (a second guest). A
 * working token keeps its key its user's (a guest's signup makes that guest the account).
 */
async function ownerOf(
  deps: Pick<KeyDeps, 'auth' | 'apiTokens'>,
  authorization: string | undefined,
  withoutToken: boolean,
): Promise<string | null> {
  if (authorization === undefined) return '';
  const bearer = deps.auth.bearerToken(authorization);
  if (bearer?.startsWith(API_TOKEN_PREFIX) && deps.apiTokens) {
    const resolved = await deps.apiTokens.authenticate(bearer);
    if (resolved) return `api_token:${resolved.apiToken.id}`;
    return withoutToken ? '' : null;
  }
  const userId = (await deps.auth.sessionOf(authorization))?.user.id;
  if (userId !== undefined) return userId;
  return withoutToken ? '' : null;
}

/** The request's body bytes, null without one. Hono keeps what it read, so the route still reads it (as JSON or multipart). */
async function bodyOf(request: {
  header(name: string): string | undefined;
  arrayBuffer(): Promise<ArrayBuffer>;
}): Promise<Uint8Array | null> {
  const hasBody = request.header('content-length') !== undefined || request.header('transfer-encoding') !== undefined;
  return hasBody ? new Uint8Array(await request.arrayBuffer()) : null;
}

/** The answer as kept: its status, the headers a replay repeats, and its body sealed. */
async function answerOf(res: Response, seal: (body: Uint8Array) => Buffer): Promise<KeptAnswer> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const body = res.body ? new Uint8Array(await res.clone().arrayBuffer()) : null;
  return { status: res.status, headers, body: body && body.length > 0 ? seal(body) : null };
}

function replay(answer: KeptAnswer, open: (sealed: Buffer) => Buffer): Response {
  const body = answer.body ? new Uint8Array(open(answer.body)) : null;
  return new Response(body, { status: answer.status, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } });
}

function reportKeyFailure(what: string, err: unknown): void {
  if (!isUnavailable(err)) console.error(`[idempotency] ${what} a key failed`, err);
}
