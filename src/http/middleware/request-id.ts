import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';

/** What a client's own id may look like: short, and nothing a log line or a header could be broken with. */
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives every request an id (CONTRACT §13): the client's `X-Request-Id` when it is a safe short
 * token (a proxy's, so one id follows the request through both logs), a new UUID otherwise. It is
 * sent back in `X-Request-Id` and carried by the request's log lines.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function tagRequest(c, next) {
    const given = c.req.header('x-request-id');
    const id = given !== undefined && SAFE_ID.test(given) ? given : randomUUID();
    c.set('requestId', id);
    await next();
    // Written into the answer made: headers set on the context beforehand would make every answer
    // merge a Headers object of its own. An answer whose headers cannot change (one a handler got
    // from fetch) is copied by the context instead.
    try {
      c.res.headers.set('X-Request-Id', id);
    } catch {
      c.header('X-Request-Id', id);
    }
  };
}
