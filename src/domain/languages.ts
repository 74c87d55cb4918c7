import * as v from 'valibot';
import { SOURCE_LANGUAGE } from '../i18n/catalog';
import { appMessages } from '../i18n/messages';
import { negotiateLanguage as negotiateAmong } from '../i18n/negotiate';
import { said } from '../i18n/valibot';

/*
 * The languages the service speaks and the time zones people live in (docs/api.md#languages-and-time-zones):
 * `users.locale`, `users.time_zone` and `workshops.language` take their values from here, and a
 * signup without a `locale` takes the request's `Accept-Language` matched against `LANGUAGES`.
 */

/**
 * The languages the service speaks, as BCP 47 tags, English first: one per message catalog
 * (`locales/<tag>.json`, docs/i18n.md), so a new catalog is a new language here too.
 */
export const LANGUAGES: readonly string[] = appMessages().languages;
export type Language = string;

/** A user's locale and a workshop's language when nothing else says: English. */
export const DEFAULT_LANGUAGE: Language = SOURCE_LANGUAGE;
/** A user's time zone when nothing else says. */
export const DEFAULT_TIME_ZONE = 'UTC';

export function isLanguage(tag: string): tag is Language {
  return LANGUAGES.includes(tag);
}

/** The shape of a language tag, for the API's description: the list itself may grow without the SDK changing. */
const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** `locale` (users) and `language` (workshops) in bodies: one of `LANGUAGES`. */
export const LanguageInput = v.pipe(
  v.string(),
  v.regex(LANGUAGE_TAG, said('error.validation.one_of', { options: LANGUAGES.join(', ') })),
  v.check(isLanguage, said('error.validation.one_of', { options: LANGUAGES.join(', ') })),
);

/**
 * The language of `LANGUAGES` an `Accept-Language` header asks for, or undefined when it names none
 * of them (no header, `*` alone, only other languages): the catalogs' own negotiation
 * (`fr-CA` → `fr`), without the pseudo-locale, which is never anyone's locale.
 */
export function negotiateLanguage(header: string | null | undefined): Language | undefined {
  return negotiateAmong(header ?? undefined, LANGUAGES);
}

/** A new account's locale when it names none: the header's language, else English. */
export function localeFromHeader(acceptLanguage: string | null | undefined): Language {
  return negotiateLanguage(acceptLanguage) ?? DEFAULT_LANGUAGE;
}

/** IANA names (`Area/Location`, `UTC`, `Etc/GMT+5`); no bare offsets, which are no zone's name. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * The canonical name of an IANA time zone as the runtime's ICU knows it (`asia/tokyo` →
 * `Asia/Tokyo`, `US/Eastern` → `America/New_York`), or undefined when it knows no such zone.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length > 64 || !ZONE_NAME.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** `time_zone` in bodies: an IANA time zone, stored under its canonical name. */
export const TimeZoneInput = v.pipe(
  v.string(),
  v.check((name) => canonicalTimeZone(name) !== undefined, said('error.validation.time_zone')),
  v.transform((name) => canonicalTimeZone(name)!),
);
