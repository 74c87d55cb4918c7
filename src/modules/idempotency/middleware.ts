import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Database } from '../../db/database';
import { isUnavailable } from '../../db/errors';
import { AppError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import type { SessionAuth } from '../auth/service';
import { claimKey, HELD_MS, holdKey, keepAnswer, releaseKey, type KeptAnswer, type KeyRef } from './keys';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** 1 to 255 visible ASCII characters (CONTRACT §12). */
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
/** The answer's headers a replay repeats; the others (dates, request ids, CORS) are the replay's own. */
const KEPT_HEADERS = ['content-type', 'location'];

/**
 * `Idempotency-Key` on every write under `/v1` (CONTRACT §12). The first request with a key runs
 * and its answer is kept for 24 hours for its user (or the key alone, without a token); a repeat
 * with the same method, path and body gets that answer again with `Idempotent-Replayed: true` and
 * runs nothing; the same key for another request is 422; a repeat while the first still runs is
 * 409 with `Retry-After: 1`. A 5xx or a 429 is not kept, so a retry runs again. The keys live in the
 * database, so they hold across instances. Requests without the header pay nothing for this.
 */
export function idempotentWrites(deps: { database: Database; auth: SessionAuth }): MiddlewareHandler<AppEnv> {
  const { database } = deps;
  return async function idempotentWrite(c, next) {
    const key = c.req.header('idempotency-key');
    if (key === undefined || !WRITES.has(c.req.method)) return next();
    if (!KEY_SHAPE.test(key)) {
      const message = 'Idempotency-Key must be 1 to 255 visible ASCII characters.';
      throw new AppError('invalid_request', message, { details: [{ path: 'Idempotency-Key', message }] });
    }
    const owner = await ownerOf(deps.auth, c.req.header('authorization'));
    // A token that does not work gets its 401 from the route, and nothing is kept for it.
    if (owner === null) return next();
    const ref: KeyRef = { owner, key };

    const claim = await claimKey(database, ref, await fingerprintOf(c.req.method, c.req.url, c.req));
    if (claim.kind === 'reused') {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for another request (method, path or body).');
    }
    if (claim.kind === 'running') {
      throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; try again shortly.', {
        headers: { 'Retry-After': '1' },
      });
    }
    if (claim.kind === 'done') return replay(claim.answer);

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
      else await keepAnswer(database, ref, await answerOf(c.res));
    } catch (err) {
      // The write itself has happened: its answer goes out. Unkept, the key frees itself once its
      // hold runs out, so a retry after that would run again.
      reportKeyFailure(status >= 500 || status === 429 ? 'releasing' : 'keeping the answer of', err);
    }
  };
}

/** The key's owner: the token's user, '' without a token, null for a token that does not work. */
async function ownerOf(auth: SessionAuth, authorization: string | undefined): Promise<string | null> {
  if (authorization === undefined) return '';
  const token = auth.bearerToken(authorization);
  const session = token ? await auth.authenticate(token) : null;
  return session ? session.user.id : null;
}

/** What makes two requests the same: method, path with query, and the body's bytes. */
async function fingerprintOf(method: string, url: string, request: { header(name: string): string | undefined; arrayBuffer(): Promise<ArrayBuffer> }): Promise<string> {
  const { pathname, search } = new URL(url);
  const hash = createHash('sha256').update(`${method} ${pathname}${search}\n`);
  // Hono keeps the body it read, so the route still reads it (as JSON or multipart) afterwards.
  const hasBody = request.header('content-length') !== undefined || request.header('transfer-encoding') !== undefined;
  if (hasBody) hash.update(new Uint8Array(await request.arrayBuffer()));
  return hash.digest('base64url');
}

async function answerOf(res: Response): Promise<KeptAnswer> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const body = res.body ? Buffer.from(await res.clone().arrayBuffer()) : null;
  return { status: res.status, headers, body };
}

function replay(answer: KeptAnswer): Response {
  const body = answer.body && answer.body.length > 0 ? new Uint8Array(answer.body) : null;
  return new Response(body, { status: answer.status, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } });
}

function reportKeyFailure(what: string, err: unknown): void {
  if (!isUnavailable(err)) console.error(`[idempotency] ${what} a key failed`, err);
}
