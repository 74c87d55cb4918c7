import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { AppError } from '../errors';
import type { AppEnv } from '../env';

interface RouteEntry {
  method: string;
  path: string;
}

/** `/v1/workshops/:id/cards` as a pattern matching one concrete path. */
function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * A path that exists, called with a method it does not take, answers 405 `method_not_allowed`
 * with `Allow`, before authentication (the answer depends on the route table only). Unknown
 * paths go on to their 404 (or 401 under `/v1`). `routes` is read on first use, once the app is built.
 */
export function allowedMethods(routes: () => readonly RouteEntry[]): MiddlewareHandler<AppEnv> {
  let table: Array<{ pattern: RegExp; methods: Set<string> }> | undefined;
  const build = () => {
    const byPath = new Map<string, Set<string>>();
    for (const { method, path } of routes()) {
      if (method === 'ALL') continue;
      const methods = byPath.get(path) ?? new Set<string>();
      methods.add(method);
      if (method === 'GET') methods.add('HEAD');
      byPath.set(path, methods);
    }
    return [...byPath].map(([path, methods]) => ({ pattern: patternOf(path), methods }));
  };
  return async function refuseOtherMethods(c, next) {
    table ??= build();
    const { method, path } = c.req;
    if (method === 'OPTIONS') return next();
    // The router found a route of the request's own method (HEAD is routed as GET): the usual case
    // needs no test of the path against every route's pattern (about 3 µs a request over the 80
    // paths of today's API, and growing with it).
    const routedAs = method === 'HEAD' ? 'GET' : method;
    for (const route of matchedRoutes(c)) if (route.method === routedAs) return next();
    const allowed = new Set<string>();
    for (const route of table) if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    if (allowed.size === 0 || allowed.has(method)) return next();
    const allow = [...allowed, 'OPTIONS'].sort().join(', ');
    throw new AppError('method_not_allowed', `${path} does not take ${method}; it takes ${allow}.`, {
      headers: { Allow: allow },
    });
  };
}
