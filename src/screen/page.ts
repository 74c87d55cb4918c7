import type { ScreenAssets } from './build';

/**
 * The screen's HTML: an empty frame the page script fills in. Nothing in it comes from the
 * request or the database; every user-provided text is set later as text, never as markup.
 */
export function screenPage(assets: Pick<ScreenAssets, 'script' | 'stylesheet'>): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>Workshop screen</title>
    <link rel="stylesheet" href="/screen/assets/${assets.stylesheet}" />
    <script type="module" src="/screen/assets/${assets.script}"></script>
  </head>
  <body data-status="loading">
    <p id="connection" class="connection" role="status" hidden>Reconnecting…</p>
    <section id="sign-in" class="sign-in" hidden>
      <h1>Sign in to the workshop screen</h1>
      <form id="sign-in-form">
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="email" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <p id="sign-in-status" class="failed" role="alert"></p>
    </section>
    <main id="screen" class="screen" hidden>
      <header class="top">
        <div class="heading">
          <p id="workshop-title" class="workshop-title"></p>
          <h1 id="step-name" class="step-name"></h1>
          <p id="step-instructions" class="instructions"></p>
        </div>
        <div class="meta">
          <p id="timer" class="timer" hidden></p>
          <p id="participation" class="participation" hidden></p>
          <p id="presence" class="presence"></p>
        </div>
      </header>
      <section id="spotlight" class="spotlight" aria-live="polite" hidden></section>
      <section id="board" class="board" hidden></section>
      <section id="clusters" class="clusters"></section>
      <p id="empty" class="empty" hidden>No cards yet.</p>
      <footer class="bottom"><span id="following" hidden>Following the facilitator's view</span><button id="sign-out" type="button">Sign out</button></footer>
    </main>
    <p id="notice" class="notice" role="status">Loading…</p>
  </body>
</html>`;
}
