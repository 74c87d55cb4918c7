import { Hono, type Context } from 'hono';
import type { AppEnv } from '../http/env';
import { AppError } from '../http/errors';
import { requestLanguage } from '../http/language';
import { pageAssets } from './assets';
import type { PageName } from './build';
import { consolePage } from './console';
import { favicon } from './favicon';
import { notFoundPage } from './not-found';
import { participantPage } from './participant';
import { screenPage } from './screen';

/** Hashed names: a file's content never changes under its name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const CONTENT_TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
/** A host as a Host header carries it (name or IP, optional port): anything else stays out of the policy. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const WORKSHOP_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** The console's own addresses besides `/workshops/<id>`: the home page, the account's settings and where the service's mails link. */
const CONSOLE_PATHS = ['/', '/signup', '/confirm', '/reset', '/account', '/invitations/:token'] as const;

/**
 * Scripts and styles from this origin only, no inline code; the page talks to this origin only
 * (REST, Socket.IO and the Yjs endpoint over ws/wss), and no other site may frame it. The screen
 * draws its QR code as SVG elements, so images stay `'self'` (no `data:`).
 */
function contentSecurityPolicy(host: string | undefined): string {
  const sockets = host && PLAIN_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src 'self'${sockets}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface PageRoutesOptions {
  /** The service's public address (`config.publicUrl`): the screen's QR code sends people to `<it>/join`. */
  publicUrl: string;
}

/**
 * The browser pages, built from the client SDK's public entry points and served by the same code:
 * `GET /`, `GET /workshops/<workshop_id>` and `GET /organizations/<organization_id>`, the
 * facilitator console (in the request's language, then the account's; also at `/account` and at the addresses the mails link to: `/confirm`,
 * `/reset`, `/signup`, `/invitations/<token>`); `GET /screen/<workshop_id>`, the live workshop screen (in the workshop's language once open); `GET /join` and `GET /w/<workshop_id>`,
 * the participant page (in the request's language); `GET /<page>/assets/<file>`, each page's script,
 * stylesheet and messages files;
 * `GET /favicon.ico`, the pages' icon.
 */
export function browserPageRoutes(options: PageRoutesOptions) {
  const html = (c: Context<AppEnv>, body: string, headers: Record<string, string> = {}) =>
    c.html(body, 200, {
      // The page names the current files: it is asked for again each time, the files are kept.
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': contentSecurityPolicy(c.req.header('host')),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      ...headers,
    });
  /** The participant page in the request's language (docs/i18n.md#which-language). */
  const participant = async (c: Context<AppEnv>) =>
    html(c, participantPage(await pageAssets('participant'), requestLanguage(c)), { Vary: 'Accept-Language' });
  /** The console in the request's language, until the script moves to the account's (docs/i18n.md#which-language). */
  const consoleAt = async (c: Context<AppEnv>) =>
    html(c, consolePage(await pageAssets('console'), options.publicUrl, requestLanguage(c)), {
      Vary: 'Accept-Language',
    });
  /** An address whose workshop id cannot be one: the not-found page, before any page script loads. */
  const noWorkshopAt = (c: Context<AppEnv>) => !WORKSHOP_ID.test(c.req.param('workshop_id') ?? '');

  return new Hono<AppEnv>()
    .get('/favicon.ico', favicon)
    .get('/:page{console|screen|participant}/assets/:file', async (c) => {
      const file = c.req.param('file');
      const assets = await pageAssets(c.req.param('page') as PageName);
      const type = CONTENT_TYPES[file.split('.').pop() ?? ''];
      if (!assets.files.has(file) || !type) throw new AppError('not_found', 'No such page file.');
      const headers = {
        'Content-Type': type,
        'Cache-Control': IMMUTABLE,
        'X-Content-Type-Options': 'nosniff',
        Vary: 'Accept-Encoding',
      };
      if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? ''))
        return c.body(assets.gzipped.get(file)!, 200, { ...headers, 'Content-Encoding': 'gzip' });
      return c.body(assets.files.get(file)!, 200, headers);
    })
    .get('/screen/:workshop_id', async (c) => {
      if (noWorkshopAt(c)) return notFoundPage(c);
      // In the request's language until the script has opened the workshop and speaks its own.
      return html(c, screenPage(await pageAssets('screen'), options.publicUrl, requestLanguage(c)), {
        Vary: 'Accept-Language',
      });
    })
    .get('/workshops/:workshop_id', async (c) => {
      if (noWorkshopAt(c)) return notFoundPage(c);
      return consoleAt(c);
    })
    .get('/organizations/:organization_id', async (c) => {
      // Organization ids are made as workshop ids are.
      if (!WORKSHOP_ID.test(c.req.param('organization_id'))) return notFoundPage(c);
      return consoleAt(c);
    })
    .on('GET', [...CONSOLE_PATHS], consoleAt)
    .get('/join', participant)
    .get('/w/:workshop_id', async (c) => {
      if (noWorkshopAt(c)) return notFoundPage(c);
      return participant(c);
    });
}
