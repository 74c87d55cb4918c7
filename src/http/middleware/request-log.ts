import type { MiddlewareHandler } from 'hono';
import pino, { type Logger } from 'pino';
import type { AppEnv } from '../env';

/** The service's structured log: one JSON line per entry on stdout (no colour codes, whatever the output). */
export function createLogger(): Logger {
  return pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * One line per request once it is answered: method, path, status and milliseconds. A structured
 * logger costs tens of microseconds a line; the query string is left out (it may carry a
 * signature or a token).
 */
export function requestLog(log: Logger): MiddlewareHandler<AppEnv> {
  return async function logRequest(c, next) {
    const started = performance.now();
    await next();
    log.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round((performance.now() - started) * 10) / 10 }, 'request');
  };
}
