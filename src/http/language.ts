import type { Context } from 'hono';
import { SOURCE_LANGUAGE } from '../i18n/catalog';
import { appMessages } from '../i18n/messages';
import type { AppEnv } from './env';

/**
 * The language a request is answered in: its `Accept-Language` negotiated against the catalogs
 * (docs/i18n.md#which-language), English when none of its languages has one. Worked out when first
 * needed (an error, a page), not for every request, and kept on the request.
 */
export function requestLanguage(c: Context<AppEnv>): string {
  let language = c.get('language');
  if (language === undefined) {
    language = appMessages().negotiate(c.req.header('accept-language')) ?? SOURCE_LANGUAGE;
    c.set('language', language);
  }
  return language;
}
