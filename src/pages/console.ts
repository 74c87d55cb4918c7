import type { PageAssets } from './build';
import { pageDocument } from './html';

/**
 * The facilitator console's HTML (`/`, `/workshops/<id>`, and the pages the service's mails link
 * to: `/confirm`, `/signup`, `/invitations/<token>`): one empty frame the page script fills in.
 * The service's public address is handed over in a `<meta>` (the policy allows no inline script).
 */
export function consolePage(assets: Pick<PageAssets, 'script' | 'stylesheet'>, publicUrl: string): string {
  return pageDocument({
    page: 'console',
    assets,
    title: 'Workshops',
    meta: { 'public-url': publicUrl, 'theme-color': '#1f4e79' },
    body: `  <body data-status="loading">
    <div id="console" class="console"><p class="loading" role="status">Loading…</p></div>
    <noscript><p>The workshop console needs JavaScript.</p></noscript>
  </body>`,
  });
}
