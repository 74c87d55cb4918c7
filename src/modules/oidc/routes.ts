import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { queryParams } from '../../http/validation';
import { oidcProvider } from './client';
import { OidcStatusOutput, StartQuery } from './schemas';
import { finishSignIn, requireProvider, sameSitePath, startSignIn, type OidcDeps } from './service';

/** Ties a sign-in to the browser that started it, so nobody can send someone else the end of theirs. */
const STATE_COOKIE = 'oidc_state';
const COOKIE_PATH = '/v1/auth/oidc';

/**
 * Sign-in through the OpenID provider (docs/integrations.md#single-sign-on), mounted at `/v1/auth`
 * without a token. The routes exist with or without a provider, so the API's description is the
 * same everywhere; without one they answer 404.
 */
export function oidcRoutes(deps: OidcDeps) {
  const provider = deps.config.oidc ? oidcProvider(deps.config.oidc) : undefined;
  const secure = deps.config.publicUrl.startsWith('https:');
  return new Hono<AppEnv>()
    .get(
      '/oidc',
      doc({
        tag: 'Auth',
        summary: 'Whether single sign-on is offered, and the name of its provider',
        response: OidcStatusOutput,
        auth: false,
      }),
      (c) => c.json({ enabled: !!provider, name: provider?.settings.name ?? null }, 200),
    )
    .get(
      '/oidc/start',
      doc({
        tag: 'Auth',
        summary: 'Start signing in with the OpenID provider: redirects the browser to it',
        description:
          'Authorization code with PKCE (S256), `state` and `nonce`. `return_to` is a path on this site where the ' +
          'console goes once signed in (`/` by default); `client_state`, a one-time value of the tab that starts the ' +
          'sign-in, comes back beside the token. Open it in the browser, not with fetch: the sign-in is tied to the ' +
          'browser by a cookie.',
        status: 302,
        redirect: "The provider's authorization endpoint",
        auth: false,
        errors: {
          404: 'Single sign-on is not configured on this server',
          503: 'The provider cannot be reached (its discovery document)',
        },
      }),
      queryParams(StartQuery),
      async (c) => {
        const chosen = requireProvider(provider);
        const query = c.req.valid('query');
        const { url, state } = await startSignIn(deps, chosen, {
          returnTo: sameSitePath(query.return_to),
          clientState: query.client_state ?? null,
        });
        setCookie(c, STATE_COOKIE, state, { path: COOKIE_PATH, httpOnly: true, sameSite: 'Lax', secure, maxAge: 600 });
        return c.redirect(url, 302);
      },
    )
    .get(
      '/oidc/callback',
      doc({
        tag: 'Auth',
        summary: 'Where the provider sends the browser back: signs the person in and returns them to the console',
        description:
          'Redirects to `return_to` with the session token in the fragment (`#token=…`, never in a query string or ' +
          'a log), or with `#sign_in_error=<problem>`: `state`, `expired`, `denied`, `failed`, `no_email` or ' +
          '`account_exists`; either followed by `&client_state=…` when the start had one ' +
          '(docs/integrations.md#single-sign-on).',
        status: 302,
        redirect: 'The console',
        auth: false,
        errors: { 404: 'Single sign-on is not configured on this server' },
      }),
      async (c) => {
        const chosen = requireProvider(provider);
        const outcome = await finishSignIn(deps, chosen, new URL(c.req.url).searchParams, getCookie(c, STATE_COOKIE), {
          userAgent: c.req.header('user-agent'),
          acceptLanguage: c.req.header('accept-language'),
        });
        deleteCookie(c, STATE_COOKIE, { path: COOKIE_PATH, httpOnly: true, sameSite: 'Lax', secure });
        const fragment = new URLSearchParams(
          'token' in outcome ? { token: outcome.token } : { sign_in_error: outcome.problem },
        );
        if (outcome.clientState) fragment.set('client_state', outcome.clientState);
        c.header('Cache-Control', 'no-store');
        c.header('Referrer-Policy', 'no-referrer');
        return c.redirect(`${deps.config.publicUrl}${outcome.returnTo}#${fragment}`, 302);
      },
    );
}
