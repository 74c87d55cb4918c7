import { appMessages, t, type MessageId } from '../i18n/messages';
import type { MessageValues } from '../i18n/message-types';
import type { PageAssets } from './build';
import { pageDocument } from './html';
import { ACCESS_CODE_DIGITS } from '../domain/access-codes';
import { escapeHtml } from '../lib/html-escape';

/**
 * The language switcher's choices: each catalog's language in its own words, the page's chosen.
 * The script knows each one's messages file from the `messages` meta.
 */
function languageOptions(lang: string): string {
  const catalogs = appMessages();
  return catalogs.languages
    .map((tag) => {
      const selected = tag === lang ? ' selected' : '';
      return `<option value="${escapeHtml(tag)}" lang="${escapeHtml(tag)}"${selected}>${escapeHtml(catalogs.meta(tag).name)}</option>`;
    })
    .join('');
}

/** A message said without values: the frame's fixed words. */
type Unvalued = { [I in MessageId]: MessageValues[I] extends undefined ? I : never }[MessageId];

/**
 * The participant page's HTML (`/join` and `/w/<workshop_id>`, one page for both) in `lang`: an
 * empty frame the page script fills in, its words from the catalogs (docs/i18n.md#which-language).
 * The script says them again in the language a person chose on this phone: the join view's by
 * name, the workshop view's from their `data-say` (text) and `data-say-label` (aria-label).
 */
export function participantPage(assets: Pick<PageAssets, 'script' | 'stylesheet' | 'messages'>, lang: string): string {
  const say = (id: Unvalued) => `data-say="${id}">${escapeHtml(t(lang, id))}`;
  const label = (id: Unvalued) => `aria-label="${escapeHtml(t(lang, id))}" data-say-label="${id}"`;
  return pageDocument({
    page: 'participant',
    assets,
    title: t(lang, 'participant.join.title'),
    meta: { 'theme-color': '#1f4e79', messages: JSON.stringify(assets.messages) },
    language: { tag: lang, dir: appMessages().meta(lang).dir, messages: assets.messages[lang] },
    body: `  <body data-status="loading">
    <p id="connection" class="connection" role="status" hidden></p>
    <main id="join" class="join" hidden>
      <div class="language-switch">
        <label for="language">${escapeHtml(t(lang, 'participant.language'))}</label>
        <select id="language">${languageOptions(lang)}</select>
      </div>
      <h1 id="join-title">${escapeHtml(t(lang, 'participant.join.title'))}</h1>
      <p id="join-notice" class="join-notice" role="status"></p>
      <section id="kept" class="kept" aria-labelledby="kept-title" hidden>
        <h2 id="kept-title">${escapeHtml(t(lang, 'participant.join.kept_title'))}</h2>
        <ul id="kept-list" class="kept-list"></ul>
      </section>
      <form id="join-form" class="join-form" novalidate>
        <div id="code-field">
          <label for="code" id="code-label">${escapeHtml(t(lang, 'participant.join.code_label'))}</label>
          <input id="code" name="code" type="text" inputmode="numeric" autocomplete="off" spellcheck="false" maxlength="20" dir="ltr" aria-describedby="code-hint" required />
          <p id="code-hint" class="hint">${escapeHtml(t(lang, 'participant.join.code_hint', { digits: ACCESS_CODE_DIGITS }))}</p>
        </div>
        <label for="name" id="name-label">${escapeHtml(t(lang, 'participant.join.name_label'))}</label>
        <input id="name" name="name" type="text" autocomplete="nickname" maxlength="60" dir="auto" aria-describedby="name-hint" required />
        <p id="name-hint" class="hint">${escapeHtml(t(lang, 'participant.join.name_hint'))}</p>
        <button id="join-button" type="submit" class="primary">${escapeHtml(t(lang, 'participant.join.submit'))}</button>
        <p id="join-status" class="failed" role="alert"></p>
      </form>
    </main>
    <div id="workshop" class="workshop" hidden>
      <header class="top">
        <p id="workshop-title" class="workshop-title"></p>
        <h1 id="step-name" class="step-name"></h1>
        <p id="step-instructions" class="instructions"></p>
        <p id="private-notice" class="privacy" hidden ${say('participant.frame.privacy_private')}</p>
        <p id="anonymous-notice" class="privacy" hidden ${say('participant.frame.privacy_anonymous')}</p>
        <p id="timer" class="timer" role="timer" hidden></p>
        <p id="points" class="points" aria-live="polite" hidden></p>
      </header>
      <main class="body">
        <p id="archived" class="archived" hidden ${say('participant.frame.archived')}</p>
        <section id="outbox" class="outbox" aria-labelledby="outbox-title" hidden>
          <h2 id="outbox-title" ${say('participant.frame.outbox_title')}</h2>
          <p id="outbox-status" class="outbox-status"></p>
          <ul id="outbox-list" class="outbox-list"></ul>
        </section>
        <p id="refused" class="refused" role="alert" hidden></p>
        <section id="lobby" class="lobby" aria-labelledby="lobby-title" hidden>
          <h2 id="lobby-title" ${say('participant.frame.lobby_title')}</h2>
          <p ${say('participant.frame.lobby_text')}</p>
          <h3 id="lobby-people-title" class="lobby-people-title" ${say('participant.frame.lobby_people')}</h3>
          <ul id="lobby-people" class="lobby-people" aria-labelledby="lobby-people-title"></ul>
          <p id="lobby-more" class="hint" hidden></p>
        </section>
        <section id="spotlight" class="spotlight" aria-labelledby="spotlight-title" hidden>
          <h2 id="spotlight-title" class="spotlight-title" ${say('participant.frame.spotlight_screen')}</h2>
          <div id="spotlight-card"></div>
        </section>
        <section id="add" class="add" ${label('participant.frame.add_label')}>
          <form id="idea-form" class="add-form" hidden>
            <h2 ${say('participant.frame.idea_heading')}</h2>
            <label for="idea-cluster" ${say('participant.frame.idea_cluster')}</label>
            <select id="idea-cluster"></select>
            <label for="idea-title" ${say('participant.frame.idea_title')}</label>
            <input id="idea-title" type="text" maxlength="500" enterkeyhint="send" autocomplete="off" dir="auto" />
            <button id="idea-form-button" type="submit" class="primary" ${say('participant.frame.idea_submit')}</button>
            <p id="idea-hint" class="hint" hidden ${say('participant.frame.idea_hint')}</p>
          </form>
          <form id="cluster-form" class="add-form" hidden>
            <h2 ${say('participant.frame.cluster_heading')}</h2>
            <label for="cluster-title" ${say('participant.frame.cluster_title')}</label>
            <input id="cluster-title" type="text" maxlength="500" enterkeyhint="send" autocomplete="off" dir="auto" />
            <button type="submit" class="primary" ${say('participant.frame.cluster_submit')}</button>
          </form>
        </section>
        <section id="cards" class="cards" ${label('participant.frame.cards_label')}></section>
        <p id="empty" class="empty" hidden ${say('participant.frame.empty')}</p>
        <details id="account" class="account" hidden>
          <summary ${say('participant.account.summary')}</summary>
          <form id="account-form" class="account-form" novalidate>
            <p class="hint" ${say('participant.account.hint')}</p>
            <label for="account-name" ${say('participant.account.name_label')}</label>
            <input id="account-name" type="text" autocomplete="name" maxlength="200" dir="auto" required />
            <label for="account-email" ${say('participant.account.email_label')}</label>
            <input id="account-email" type="email" autocomplete="email" maxlength="254" dir="ltr" required />
            <label for="account-password" ${say('participant.account.password_label')}</label>
            <input id="account-password" type="password" autocomplete="new-password" aria-describedby="account-password-hint" required />
            <p id="account-password-hint" class="hint" ${say('participant.account.password_hint')}</p>
            <button id="account-button" type="submit" class="primary" ${say('participant.account.submit')}</button>
            <p id="account-status" class="failed" role="alert"></p>
          </form>
        </details>
        <p id="account-done" class="account-done" role="status" hidden></p>
      </main>
      <footer class="bottom">
        <span id="following" hidden ${say('participant.frame.following')}</span>
        <span id="presence"></span>
        <button id="leave" type="button" class="quiet" ${say('participant.frame.leave')}</button>
      </footer>
    </div>
    <p id="notice" class="notice" role="status">${escapeHtml(t(lang, 'participant.frame.loading'))}</p>
    <p id="announce" class="visually-hidden" aria-live="polite"></p>
  </body>`,
  });
}
