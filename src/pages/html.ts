import type { PageAssets, PageName } from './build';
import { escapeHtml } from '../lib/html-escape';

export interface PageDocument {
  page: PageName;
  assets: Pick<PageAssets, 'script' | 'stylesheet'>;
  title: string;
  /** `<meta name content>` pairs handed to the page script (the policy allows no inline script). */
  meta?: Record<string, string>;
  /** The body's elements: an empty frame the page script fills in. */
  body: string;
  /**
   * The language the page is served in (`<html lang dir>`), with its messages file, preloaded so
   * the script has its words at once (docs/i18n.md#in-the-pages). English without one by default.
   */
  language?: { tag: string; dir: 'ltr' | 'rtl'; messages?: string };
}

/**
 * A browser page's HTML: its stylesheet and module script from `/<page>/assets/`, no inline code.
 * Nothing in it comes from the request or the database (`meta` holds configuration; the language
 * is a catalog's, negotiated from the request); every text people wrote is set later by the
 * script as text, never as markup.
 */
export function pageDocument({ page, assets, title, meta = {}, body, language }: PageDocument): string {
  const metas = Object.entries(meta).map(
    ([name, content]) => `\n    <meta name="${escapeHtml(name)}" content="${escapeHtml(content)}" />`,
  );
  const { tag, dir } = language ?? { tag: 'en', dir: 'ltr' };
  const preload = language?.messages
    ? `\n    <link rel="modulepreload" href="/${page}/assets/${escapeHtml(language.messages)}" />`
    : '';
  return `<!doctype html>
<html lang="${escapeHtml(tag)}" dir="${dir}">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />${metas.join('')}
    <title>${escapeHtml(title)}</title>
    <link rel="stylesheet" href="/${page}/assets/${assets.stylesheet}" />${preload}
    <script type="module" src="/${page}/assets/${assets.script}"></script>
  </head>
${body}
</html>`;
}
