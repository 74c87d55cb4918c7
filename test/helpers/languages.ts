import { expect } from 'vitest';
import type { ErrorCode } from '../../src/http/errors';
import { errorOf, expectError } from './factories';
import type { ApiResponse, RequestOptions } from './server';

/** The languages the refusals are asked in besides English: one of each script and plural system. */
export const ASKED_LANGUAGES = ['fr', 'de', 'ar'] as const;

/**
 * Sends the same request without Accept-Language, then in each of `ASKED_LANGUAGES`; checks the
 * status and code are the same every time, and that an answer in a language says it varies with
 * the header (docs/i18n.md#which-language). Hands back each answer's error by language ('' for none).
 */
export async function askedInEachLanguage(
  send: (options: Pick<RequestOptions, 'headers'>) => Promise<ApiResponse>,
  status: number,
  code: ErrorCode,
) {
  const errors = new Map<string, ReturnType<typeof errorOf>>();
  for (const lang of ['', ...ASKED_LANGUAGES]) {
    const res = await send(lang ? { headers: { 'accept-language': lang } } : {});
    expectError(res, status, code);
    if (lang) expect(res.headers.get('vary') ?? '').toMatch(/accept-language/i);
    errors.set(lang, errorOf(res));
  }
  return errors;
}
