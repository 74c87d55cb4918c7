import { appMessages, t } from '../i18n/messages';
import type { PageAssets } from './build';
import { pageDocument } from './html';
import { escapeHtml } from '../lib/html-escape';

/**
 * The facilitator console's HTML (`/`, `/workshops/<id>`, and the pages the service's mails link
 * to: `/confirm`, `/signup`, `/invitations/<token>`) in `lang`: one empty frame the page script
 * fills in. The request carries no credentials (the token is in the browser's storage), so the
 * frame is in the request's language; once signed in, the script moves to the account's `locale`
 * (docs/i18n.md#which-language). The service's public address, each language's messages file and
 * the languages' names (for the Account page's choice) are handed over in `<meta>`s (the policy
 * allows no inline script).
 */
export function consolePage(
  assets: Pick<PageAssets, 'script' | 'stylesheet' | 'messages'>,
  publicUrl: string,
  lang: string,
): string {
  const catalogs = appMessages();
  const names = Object.fromEntries(catalogs.languages.map((tag) => [tag, catalogs.meta(tag).name]));
  return pageDocument({
    page: 'console',
    assets,
    title: t(lang, 'console.title'),
    meta: {
      'public-url': publicUrl,
      'theme-color': '#1f4e79',
      messages: JSON.stringify(assets.messages),
      languages: JSON.stringify(names),
    },
    language: { tag: lang, dir: catalogs.meta(lang).dir, messages: assets.messages[lang] },
    body: `  <body data-status="loading">
    <div id="console" class="console"><p class="loading" role="status">${escapeHtml(t(lang, 'console.loading'))}</p></div>
    <noscript><p>${escapeHtml(t(lang, 'console.noscript'))}</p></noscript>
  </body>`,
  });
}
