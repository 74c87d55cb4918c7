import type { Context } from 'hono';

/*
 * The icon browsers ask for at `/favicon.ico` on every page: a small SVG (three cards on a board),
 * served under that name so an ordinary load asks for nothing that is not there.
 */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#1d4ed8"/>
<rect x="5" y="6" width="10" height="9" rx="1.5" fill="#fde68a"/>
<rect x="17" y="6" width="10" height="9" rx="1.5" fill="#bbf7d0"/>
<rect x="5" y="17" width="10" height="9" rx="1.5" fill="#fecaca"/>
</svg>
`;

export function favicon(c: Context): Response {
  return c.body(ICON, 200, {
    'Content-Type': 'image/svg+xml',
    'Cache-Control': 'public, max-age=86400',
    'X-Content-Type-Options': 'nosniff',
  });
}
