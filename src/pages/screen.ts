import { appMessages, t, type MessageId, type MessageValues } from '../i18n/messages';
import type { PageAssets } from './build';
import { pageDocument } from './html';
import { escapeHtml } from '../lib/html-escape';

/** The ids of messages without placeholders. */
type PlainMessageId = { [I in MessageId]: MessageValues[I] extends undefined ? I : never }[MessageId];

/**
 * The screen's HTML in `lang`: an empty frame the page script fills in. The service's public
 * address (configuration, for the invitation's QR code) is handed over in a `<meta>`.
 *
 * The page's address names a workshop, but its request carries no credentials (the screen's token
 * is in the tab's session storage), so the server cannot tell whether the asker may know anything
 * of it, its language included: the frame is in the request's language (the sign-in form, the
 * first notice), and the script moves to the workshop's language once it has opened the workshop
 * (docs/i18n.md#which-language). Every word here is said again by the script in that language
 * (`sayFrame` in web/screen/language.ts).
 */
export function screenPage(
  assets: Pick<PageAssets, 'script' | 'stylesheet' | 'messages'>,
  publicUrl: string,
  lang: string,
): string {
  const say = (id: PlainMessageId) => escapeHtml(t(lang, id));
  return pageDocument({
    page: 'screen',
    assets,
    title: t(lang, 'screen.title'),
    meta: { 'public-url': publicUrl, messages: JSON.stringify(assets.messages) },
    language: { tag: lang, dir: appMessages().meta(lang).dir, messages: assets.messages[lang] },
    body: `  <body data-status="loading">
    <p id="connection" class="connection" role="status" hidden>${say('screen.reconnecting')}</p>
    <section id="sign-in" class="sign-in" hidden>
      <h1 id="sign-in-title">${say('screen.sign_in.title')}</h1>
      <form id="sign-in-form">
        <label for="email" id="email-label">${say('screen.sign_in.email')}</label>
        <input id="email" name="email" type="email" autocomplete="email" dir="ltr" required />
        <label for="password" id="password-label">${say('screen.sign_in.password')}</label>
        <input id="password" name="password" type="password" autocomplete="current-password" dir="ltr" required />
        <button id="sign-in-button" type="submit">${say('screen.sign_in.submit')}</button>
      </form>
      <p id="sign-in-status" class="failed" role="alert"></p>
    </section>
    <main id="screen" class="screen" hidden>
      <header class="top">
        <div class="heading">
          <p id="workshop-title" class="workshop-title" dir="auto"></p>
          <h1 id="step-name" class="step-name" dir="auto"></h1>
          <p id="step-instructions" class="instructions" dir="auto"></p>
          <p id="private-notice" class="privacy" hidden>${say('screen.privacy.private')}</p>
          <p id="private-count" class="private-count" hidden></p>
          <p id="anonymous-notice" class="privacy" hidden>${say('screen.privacy.anonymous')}</p>
        </div>
        <div id="meta" class="meta">
          <p id="timer" class="timer" hidden></p>
          <p id="participation" class="participation" hidden></p>
          <p id="presence" class="presence"></p>
          <aside id="invite" class="invite" aria-labelledby="invite-title" hidden>
            <div id="invite-qr" class="invite-qr"></div>
            <p id="invite-title" class="invite-title">${say('screen.invite.title')}</p>
            <p id="invite-how" class="invite-how"><span id="invite-address" class="invite-address" dir="ltr"></span> <span id="invite-code" class="invite-code" dir="ltr"></span></p>
          </aside>
        </div>
      </header>
      <section id="lobby" class="lobby" aria-label="${say('screen.lobby_label')}" hidden></section>
      <section id="spotlight" class="spotlight" aria-live="polite" hidden></section>
      <section id="board" class="board" hidden></section>
      <section id="clusters" class="clusters"></section>
      <p id="empty" class="empty" hidden>${say('screen.empty')}</p>
      <footer class="bottom"><span id="following" hidden>${say('screen.following')}</span><button id="sign-out" type="button">${say('screen.sign_out')}</button></footer>
    </main>
    <p id="notice" class="notice" role="status">${say('screen.loading')}</p>
  </body>`,
  });
}
