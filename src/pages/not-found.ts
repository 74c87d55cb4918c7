import type { Context } from 'hono';
import type { AppEnv } from '../http/env';

/*
 * What a browser asking for a page that is not there gets: a page in words with the way back to
 * the console, instead of the API's JSON error. Clients of the API (`/v1/…`, or anything not
 * asking for HTML) keep the JSON body every error has (docs/api.md#authentication-and-errors).
 */

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>No such page</title>
  </head>
  <body>
    <main>
      <h1>No such page</h1>
      <p>There is nothing at this address. <a href="/">Go to your workshops</a>, or <a href="/join">join a workshop with its code</a>.</p>
    </main>
  </body>
</html>`;

/** Whether the request is a browser asking for a page (not an API call). */
export function wantsPage(c: Context<AppEnv>): boolean {
  return !c.req.path.startsWith('/v1/') && (c.req.header('accept') ?? '').includes('text/html');
}

/** The 404 page, under a policy that allows nothing but the page itself. */
export function notFoundPage(c: Context<AppEnv>): Response {
  return c.html(PAGE, 404, {
    'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  });
}
