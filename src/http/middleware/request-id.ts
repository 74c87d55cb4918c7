import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { AppEnv } from '../env';

/** What a client's own id may look like: short, and nothing a log line or a header could be broken with. */
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The id a request goes by (docs/operations.md#request-ids): the client's `X-Request-Id` when it is a safe short
 * token (a proxy's, so one id follows the request through both logs), a new UUID otherwise.
 */
export function requestIdOf(c: Context): string {
  const given = c.req.header('x-request-id');
  return given !== undefined && SAFE_ID.test(given) ? given : randomUUID();
}

/**
 * Gives the request its id (`c.get('requestId')`) and puts it on the answer. Served by node (the
 * server), the header is set on the node response before the answer exists, and node merges it
 * into whatever answer is written: touching the answer's own headers instead turns the adapter's
 * plain header record into a `Headers` object and makes it rebuild the record from it, about
 * 4 µs a request, a tenth of the hello route's time. Returns false when there is no node
 * response (`app.request`, in-process): `tagAnswer` then puts it on the answer once made.
 */
export function tagRequest(c: Context<AppEnv>, id: string): boolean {
  c.set('requestId', id);
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing === undefined || typeof outgoing.setHeader !== 'function' || outgoing.headersSent) return false;
  outgoing.setHeader('X-Request-Id', id);
  return true;
}

/** Puts `id` on the answer made (the in-process case of `tagRequest`). */
export function tagAnswer(c: Context<AppEnv>, id: string): void {
  // Written into the answer made: headers set on the context beforehand would make every answer
  // merge a Headers object of its own. An answer whose headers cannot change (one a handler got
  // from fetch) is copied by the context instead.
  try {
    c.res.headers.set('X-Request-Id', id);
  } catch {
    c.header('X-Request-Id', id);
  }
}
