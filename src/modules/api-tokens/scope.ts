import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { budget } from '../../config-limits';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { openApiPath, scopeOf, type ApiTokenIdentity } from '../../domain/api-scopes';
import { AppError, notFound } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { organizationOwning } from '../organizations/repo';
import { workshopOfZone } from '../access/repo';
import { msg, type Message } from '../../i18n/messages';

/** 403 `insufficient_scope`, naming the scope the route needs (docs/api.md#authentication-and-errors). */
export function insufficientScope(scope: string | undefined, why?: Message): AppError {
  return new AppError(
    'insufficient_scope',
    why ?? (scope ? msg('error.api_tokens.lacks_scope', { scope }) : msg('error.auth.session_required')),
  );
}

/**
 * After `authenticate`, for requests made with an API token: counts the request against the token's
 * own rate limit, refuses an operation outside its scopes (`domain/api-scopes.ts`), and keeps an
 * organization's token to that organization's resources. Session tokens pass untouched.
 */
export function tokenScope(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const limiter = deps.attempts.limiter({ name: 'api_token', ...budget(deps.config, 'apiTokenRequestsPerMinute') });
  return async function checkTokenScope(c, next) {
    const token = c.get('apiToken');
    if (!token) return next();
    const wait = await limiter.take(token.id);
    if (wait !== null) {
      throw new AppError('rate_limited', msg('error.api_tokens.rate', { seconds: wait }), {
        headers: { 'Retry-After': String(wait) },
      });
    }
    // The operation the request reached, as the OpenAPI document names it.
    const scope = scopeOf(c.req.method, openApiPath(routePath(c, -1)));
    if (!scope || !token.scopes.includes(scope)) throw insufficientScope(scope);
    if (token.organizationId) await keepToOrganization(deps.database.db, token, c.req.method, c.req.path);
    return next();
  };
}

/** An organization's token acts as its admin for its own workshops and members, nothing else. */
async function keepToOrganization(db: Db, token: ApiTokenIdentity, method: string, path: string): Promise<void> {
  const organizationId = token.organizationId!;
  const [, , collection, id] = path.split('/').map((segment) => decodeURIComponent(segment));
  if (collection === 'user') throw insufficientScope(undefined, msg('error.api_tokens.organization_not_person'));
  if (collection === 'organizations') {
    if (id !== organizationId) throw notFound('organization');
    return;
  }
  if (collection === 'workshops' && id === 'canvas') {
    const workshopId = await workshopOfZone(db, path.split('/').at(-1)!);
    if (!workshopId || (await organizationOwning(db, workshopId)) !== organizationId) throw notFound('zone');
    return;
  }
  if (collection === 'workshops' && id !== undefined && id !== '') {
    if ((await organizationOwning(db, id)) !== organizationId) throw notFound('workshop');
    return;
  }
  // The catalogs read alike for everyone; what would be the maker's own (a personal workshop, an upload) is not the organization's.
  if (method === 'GET' && (collection === 'canvas' || collection === 'templates')) return;
  throw insufficientScope(undefined, msg('error.api_tokens.organization_only', { organization: organizationId }));
}
