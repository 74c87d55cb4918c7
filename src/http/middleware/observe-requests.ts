import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { AppEnv } from '../env';
import { routeTemplate } from './http-metrics';
import { requestIdOf, tagAnswer, tagRequest } from './request-id';
import { logRequest } from './request-log';

/** Where a request's count and duration go: `Metrics` (`ops/metrics.ts`) in the app. */
export interface RequestMetrics {
  request(method: string, route: string, status: number, seconds: number): void;
}

/**
 * What every request gets (docs/operations.md#request-ids), in one middleware, first in the chain: its id, sent
 * back and on its log line (`request-id.ts`); once answered, its line in `log` when there is one
 * (`request-log.ts`), and its count and duration by method, route template and status
 * (`RequestMetrics.request`). One middleware rather than three: each layer of the chain costs about a
 * microsecond a request on its own, and the clock and the route template are read once for both.
 */
export function observeRequests(metrics: RequestMetrics, log?: Logger): MiddlewareHandler<AppEnv> {
  return async function observeRequest(c, next) {
    const started = performance.now();
    const id = requestIdOf(c);
    const tagged = tagRequest(c, id);
    await next();
    if (!tagged) tagAnswer(c, id);
    const ms = performance.now() - started;
    const route = routeTemplate(c);
    metrics.request(c.req.method, route, c.res.status, ms / 1000);
    if (log) logRequest(log, c, route, ms);
  };
}
