import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

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
