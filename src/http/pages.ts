import { Hono } from 'hono';
import type { AppEnv } from './env';

/*
 * The pages a link in a mail opens. They are plain HTML that call the API themselves, so a link
 * built from PUBLIC_URL works without any frontend deployed beside the service.
 */

/** A small page: the links' tokens must not leak through the referrer, and it reads well on a phone. */
function page(title: string, body: string, extraStyle = ''): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>${title}</title>
    <style>
      body { font: 18px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 12vh auto; padding: 0 1rem; color: #222; }
      .ok { color: #176c2f; } .failed { color: #a4161a; }${extraStyle}
    </style>
  </head>
  <body>
${body}
  </body>
</html>`;
}

const CONFIRM_PAGE = page(
  'Confirm your e-mail address',
  `    <h1>Confirm your e-mail address</h1>
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
    </script>`,
);

/** The pages with a form: their fields' look. */
const FORM_STYLE = `
      label { display: block; margin: 0.6rem 0 0.2rem; } input { font: inherit; width: 100%; padding: 0.4rem; box-sizing: border-box; }
      button { font: inherit; margin-top: 1rem; padding: 0.5rem 1.2rem; }`;

/**
 * The pages with a form: a JSON POST that throws the API's own message, and a submit handler that
 * shows progress, then the outcome (and hides the form once it worked).
 */
const FORM_SCRIPT = `
      const status = document.getElementById('status');
      const value = (id) => document.getElementById(id).value;
      const postJson = async (path, body, bearer) => {
        const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(bearer ? { authorization: 'Bearer ' + bearer } : {}) }, body: JSON.stringify(body) });
        const data = await res.json().catch(() => null);
        if (!res.ok) throw new Error((data && data.error && data.error.message) || 'Something went wrong.');
        return data;
      };
      const onSubmit = (busy, work) => {
        document.getElementById('form').onsubmit = async (e) => {
          e.preventDefault();
          status.className = '';
          status.textContent = busy;
          try {
            status.textContent = await work();
            status.className = 'ok';
            document.getElementById('form').hidden = true;
          } catch (err) {
            status.className = 'failed';
            status.textContent = err.message;
          }
        };
      };`;

const INVITATION_PAGE = page(
  'Join a workshop',
  `    <h1>Join the workshop</h1>
    <p>Sign in with your account (or <a href="#" id="toggle">create one</a>) to accept the invitation.</p>
    <form id="form">
      <div id="name-field" hidden><label for="name">Name</label><input id="name" autocomplete="name" /></div>
      <label for="email">E-mail</label><input id="email" type="email" autocomplete="email" required />
      <label for="password">Password</label><input id="password" type="password" autocomplete="current-password" minlength="8" required />
      <button type="submit" id="submit">Sign in and join</button>
    </form>
    <p id="status" role="status"></p>
    <script>${FORM_SCRIPT}
      const token = location.pathname.split('/').pop();
      let signingUp = false;
      document.getElementById('toggle').onclick = (e) => {
        e.preventDefault();
        signingUp = !signingUp;
        document.getElementById('name-field').hidden = !signingUp;
        document.getElementById('submit').textContent = signingUp ? 'Sign up and join' : 'Sign in and join';
      };
      onSubmit('Joining…', async () => {
        const credentials = { email: value('email'), password: value('password') };
        const session = signingUp
          ? await postJson('/v1/auth/signup', { ...credentials, name: value('name') || credentials.email })
          : await postJson('/v1/auth/login', credentials);
        const { workshop_id } = await postJson('/v1/invitations/' + encodeURIComponent(token) + '/accept', {}, session.token);
        return 'You are in: you are now a participant of the workshop (' + workshop_id + ').';
      });
    </script>`,
  FORM_STYLE,
);

const SIGNUP_PAGE = page(
  'Create your account',
  `    <h1>Create your account</h1>
    <form id="form">
      <label for="name">Name</label><input id="name" autocomplete="name" required />
      <label for="email">E-mail</label><input id="email" type="email" autocomplete="email" required />
      <label for="password">Password (at least 8 characters)</label><input id="password" type="password" autocomplete="new-password" minlength="8" required />
      <button type="submit">Create my account</button>
    </form>
    <p id="status" role="status"></p>
    <script>${FORM_SCRIPT}
      document.getElementById('email').value = new URLSearchParams(location.search).get('email') || '';
      onSubmit('Creating your account…', async () => {
        await postJson('/v1/auth/signup', { name: value('name'), email: value('email'), password: value('password') });
        return 'Your account is ready. Confirm your address with the link we just mailed you.';
      });
    </script>`,
  FORM_STYLE,
);

/** `GET /confirm?token=…`, `GET /invitations/<token>` and `GET /signup?email=…`: the links in the service's mails. */
export function pageRoutes() {
  return new Hono<AppEnv>()
    .get('/confirm', (c) => c.html(CONFIRM_PAGE, 200, { 'Cache-Control': 'no-store' }))
    .get('/signup', (c) => c.html(SIGNUP_PAGE, 200, { 'Cache-Control': 'no-store' }))
    .get('/invitations/:token', (c) => c.html(INVITATION_PAGE, 200, { 'Cache-Control': 'no-store' }));
}
