import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Metrics } from '../../ops/metrics';
import type { AppEnv } from '../env';

/** The route label of a request no route took (an unknown path, a refused method). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The template of the route that took the request (`/v1/workshops/:id/cards`), never the path
 * the client sent, so a label holds no id and the series stay few. Middleware is registered for
 * every method (`ALL`); the first route of the request's own method is the one that answered, or
 * would have, had a middleware (authentication, a body limit) not answered first.
 */
export function routeTemplate(c: Context): string {
  for (const route of matchedRoutes(c)) if (route.method !== 'ALL') return route.path;
  return UNMATCHED_ROUTE;
}

/** Counts and times every request by method, route template and status (`Metrics.request`). */
export function measureRequests(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async function measureRequest(c, next) {
    const started = performance.now();
    await next();
    metrics.request(c.req.method, routeTemplate(c), c.res.status, (performance.now() - started) / 1000);
  };
}
