import type { PageAssets } from './build';
import { pageDocument, SCREEN_PRIVACY_NOTICES } from './html';

/**
 * The screen's HTML: an empty frame the page script fills in. The service's public address
 * (configuration, for the invitation's QR code) is handed over in a `<meta>`.
 */
export function screenPage(assets: Pick<PageAssets, 'script' | 'stylesheet'>, publicUrl: string): string {
  return pageDocument({
    page: 'screen',
    assets,
    title: 'Workshop screen',
    meta: { 'public-url': publicUrl },
    body: `  <body data-status="loading">
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
          ${SCREEN_PRIVACY_NOTICES.private}
          <p id="private-count" class="private-count" hidden></p>
          ${SCREEN_PRIVACY_NOTICES.anonymous}
        </div>
        <div id="meta" class="meta">
          <p id="timer" class="timer" hidden></p>
          <p id="participation" class="participation" hidden></p>
          <p id="presence" class="presence"></p>
          <aside id="invite" class="invite" aria-labelledby="invite-title" hidden>
            <div id="invite-qr" class="invite-qr"></div>
            <p id="invite-title" class="invite-title">Join on your phone</p>
            <p class="invite-address">Scan, or go to <span id="invite-address"></span></p>
            <p class="invite-code-line">and enter <span id="invite-code" class="invite-code"></span></p>
          </aside>
        </div>
      </header>
      <section id="lobby" class="lobby" aria-label="Before the first step" hidden></section>
      <section id="spotlight" class="spotlight" aria-live="polite" hidden></section>
      <section id="board" class="board" hidden></section>
      <section id="clusters" class="clusters"></section>
      <p id="empty" class="empty" hidden>No cards yet.</p>
      <footer class="bottom"><span id="following" hidden>Following the facilitator's view</span><button id="sign-out" type="button">Sign out</button></footer>
    </main>
    <p id="notice" class="notice" role="status">Loading…</p>
  </body>`,
  });
}
