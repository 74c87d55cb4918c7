import { Hono } from 'hono';
import type { AppDeps } from './deps';
import { AppError, toErrorResponse } from './http/errors';
import { msg } from './i18n/messages';
import type { AppEnv } from './http/env';
import { docsRoutes } from './http/docs';
import { browserPageRoutes } from './pages/routes';
import { notFoundPage, wantsPage } from './pages/not-found';
import { cors } from 'hono/cors';
import { limitBodySize } from './http/middleware/body-limit';
import { allowedMethods } from './http/middleware/methods';
import { observeRequests } from './http/middleware/observe-requests';
import { createLogger } from './http/middleware/request-log';
import { authenticate } from './modules/auth/middleware';
import { guestScope } from './modules/auth/guest-scope';
import { idempotentWrites } from './modules/idempotency/middleware';
import { replayAfterAccess } from './modules/idempotency/replay-access';
import { apiTokensRoutes } from './modules/api-tokens/routes';
import { apiTokenAuth } from './modules/api-tokens/resolve';
import type { ApiTokenAuth } from './http/session-auth';
import { tokenScope } from './modules/api-tokens/scope';
import { ssoSessions } from './modules/access/sso';
import { authRoutes, confirmationResendRoutes } from './modules/auth/routes';
import { accountRoutes } from './modules/auth/account-routes';
import { accountDeletionRoutes } from './modules/account-deletion/routes';
import { accountExportRoutes } from './modules/account-export/routes';
import { attachmentsRoutes } from './modules/attachments/routes';
import { canvasRoutes } from './modules/canvas/routes';
import { cardsRoutes } from './modules/cards/routes';
import { commentsRoutes } from './modules/comments/routes';
import { criteriaRoutes } from './modules/criteria/routes';
import { eventsRoutes } from './modules/events/routes';
import { exportsRoutes } from './modules/exports/routes';
import { invitationPreviewRoutes, invitationsRoutes } from './modules/invitations/routes';
import { itemsRoutes } from './modules/items/routes';
import { notificationsRoutes } from './modules/notifications/routes';
import { oidcRoutes } from './modules/oidc/routes';
import { organizationsRoutes } from './modules/organizations/routes';
import { webhooksRoutes } from './modules/webhooks/routes';
import { ratingsRoutes } from './modules/ratings/routes';
import { sectionsRoutes } from './modules/sections/routes';
import { stepsRoutes } from './modules/steps/routes';
import { participationRoutes } from './modules/participation/routes';
import { templatesRoutes } from './modules/templates/routes';
import { timerRoutes } from './modules/timer/routes';
import { publicFileRoutes, uploadsRoutes } from './modules/uploads/routes';
import { usersRoutes } from './modules/users/routes';
import { votesRoutes } from './modules/votes/routes';
import { guestJoinRoutes } from './modules/workshops/guests';
import { workshopsRoutes } from './modules/workshops/routes';
import { refuseWhileDraining } from './ops/drain';
import { opsRoutes } from './ops/routes';

/**
 * The authenticated `/v1` API. Each module owns its full paths below `/v1`; modules whose paths
 * share a prefix with a parameter (`/workshops/join` and `/workshops/:id`) register static paths first.
 */
function apiRoutes(deps: AppDeps, apiTokens: ApiTokenAuth) {
  return (
    new Hono<AppEnv>()
      .use(authenticate(deps, apiTokens))
      .use(guestScope())
      .use(tokenScope(deps))
      .use(ssoSessions(deps))
      .use(replayAfterAccess(deps))
      .route('/', usersRoutes(deps))
      .route('/', apiTokensRoutes(deps))
      .route('/', confirmationResendRoutes(deps))
      .route('/', accountRoutes(deps))
      .route('/', accountDeletionRoutes(deps))
      .route('/', accountExportRoutes(deps))
      .route('/', notificationsRoutes(deps))
      .route('/', organizationsRoutes(deps))
      .route('/', webhooksRoutes(deps))
      // Before workshops: `/workshops/canvas/zones/:id` has no workshop id.
      .route('/', canvasRoutes(deps))
      .route('/', workshopsRoutes(deps))
      .route('/', stepsRoutes(deps))
      .route('/', cardsRoutes(deps))
      .route('/', votesRoutes(deps))
      .route('/', ratingsRoutes(deps))
      .route('/', itemsRoutes(deps))
      .route('/', commentsRoutes(deps))
      .route('/', attachmentsRoutes(deps))
      .route('/', criteriaRoutes(deps))
      .route('/', sectionsRoutes(deps))
      .route('/', eventsRoutes(deps))
      .route('/', invitationsRoutes(deps))
      .route('/', exportsRoutes(deps))
      .route('/', timerRoutes(deps))
      .route('/', participationRoutes(deps))
      .route('/', templatesRoutes(deps))
      .route('/', uploadsRoutes(deps))
  );
}

/**
 * Builds the HTTP app; `createServer` puts it on a node server beside Socket.IO and Yjs. Requests
 * are logged to stdout when `LOG_REQUESTS` is on.
 */
export function createApp(deps: AppDeps) {
  const app = new Hono<AppEnv>();
  app.use(observeRequests(deps.metrics, deps.config.logRequests ? createLogger() : undefined));
  // Once the instance drains, what arrives on a connection kept alive from before is sent elsewhere.
  app.use(refuseWhileDraining(deps.readiness));

  // Only cross-origin requests carry an Origin; the others skip the CORS middleware, whose header
  // writes build a full Response object per request (a third of the hello route's throughput).
  const corsHeaders = cors({
    origin: deps.config.corsOrigins,
    exposeHeaders: ['X-Total-Count', 'Link', 'Retry-After', 'X-Request-Id', 'Idempotent-Replayed', 'X-Workshop-Role'],
    maxAge: 600,
  });
  app.use('*', async function crossOrigin(c, next) {
    if (c.req.header('origin') === undefined) return next();
    // eslint-disable-next-line @typescript-eslint/no-unsafe-argument -- Hono types app.use's context input as any
    return corsHeaders(c, next);
  });
  app.use(
    '*',
    allowedMethods(() => app.routes),
  );
  app.use('*', limitBodySize());
  // A NUL character in the path names no resource (no store keeps it in an id); the query string's
  // and the body's are refused with 400 by `parseInput`.
  app.use('*', async function nulInPath(c, next) {
    const { url } = c.req;
    const query = url.indexOf('?');
    if ((query < 0 ? url : url.slice(0, query)).includes('%00'))
      throw new AppError('not_found', msg('error.not_found'));
    return next();
  });
  // One cache of resolved API tokens for the keys and the routes.
  const apiTokens = apiTokenAuth(deps.database);
  // Before every /v1 route, the ones without a token included (docs/api.md#idempotent-writes).
  app.use('/v1/*', idempotentWrites({ ...deps, apiTokens }));

  const routes = app
    .route('/', opsRoutes(deps))
    .route(
      '/',
      docsRoutes(deps.config, () => app),
    )
    .route('/', browserPageRoutes({ publicUrl: deps.config.publicUrl }))
    .route('/', publicFileRoutes(deps))
    .route('/v1/auth', authRoutes(deps))
    .route('/v1/auth', oidcRoutes(deps))
    // Needs no token: before the routes that do (their `authenticate` would answer 401).
    .route('/v1', guestJoinRoutes(deps))
    .route('/v1', invitationPreviewRoutes(deps))
    .route('/v1', apiRoutes(deps, apiTokens));

  app.notFound((c) =>
    wantsPage(c)
      ? notFoundPage(c)
      : toErrorResponse(
          new AppError('not_found', msg('error.no_route', { method: c.req.method, path: c.req.path })),
          c,
        ),
  );
  app.onError((err, c) => toErrorResponse(err, c));
  return routes;
}

export type AppType = ReturnType<typeof createApp>;
