import { Hono } from 'hono';
import type { AppEnv } from './env';

/*
 * The pages a link in a mail opens. They are plain HTML that call the API themselves, so a link
 * built from PUBLIC_URL works without any frontend deployed beside the service.
 */

const CONFIRM_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Confirm your e-mail address</title>
    <style>
      body { font: 18px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 15vh auto; padding: 0 1rem; color: #222; }
      .ok { color: #176c2f; } .failed { color: #a4161a; }
    </style>
  </head>
  <body>
    <h1>Confirm your e-mail address</h1>
    <p id="status" role="status">Confirming…</p>
    <script>
      (async () => {
        const status = document.getElementById('status');
        const token = new URLSearchParams(location.search).get('token');
        // The token has done its work once sent: keep it out of the history and of shared screens.
        history.replaceState(null, '', location.pathname);
        if (!token) {
          status.textContent = 'This link has no confirmation token. Open the link from the mail again.';
          status.className = 'failed';
          return;
        }
        try {
          const res = await fetch('/v1/auth/confirm', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
          if (res.status === 204) {
            status.textContent = 'Your e-mail address is confirmed. You can close this page.';
            status.className = 'ok';
          } else {
            const body = await res.json().catch(() => null);
            status.textContent = (body && body.error && body.error.message) || 'This link could not be used.';
            status.className = 'failed';
          }
        } catch {
          status.textContent = 'The server could not be reached. Try the link again in a moment.';
          status.className = 'failed';
        }
      })();
    </script>
  </body>
</html>`;

/** `GET /confirm?token=…`: the confirmation mail's link. */
export function pageRoutes() {
  return new Hono<AppEnv>().get('/confirm', (c) => c.html(CONFIRM_PAGE, 200, { 'Cache-Control': 'no-store' }));
}
