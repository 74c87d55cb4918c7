import * as v from 'valibot';

/*
 * The languages the service speaks and the time zones people live in (docs/api.md#languages-and-time-zones):
 * `users.locale`, `users.time_zone` and `workshops.language` take their values from here, and a
 * signup without a `locale` takes the request's `Accept-Language` matched against `LANGUAGES`.
 * One place on purpose: when the message catalogs land, the list and the matcher follow them.
 */

/** The languages the service speaks, as BCP 47 tags; the first is the default. */
export const LANGUAGES = ['en', 'fr', 'de', 'es', 'ar'] as const;
export type Language = (typeof LANGUAGES)[number];

/** A user's locale and a workshop's language when nothing else says: English. */
export const DEFAULT_LANGUAGE: Language = 'en';
/** A user's time zone when nothing else says. */
export const DEFAULT_TIME_ZONE = 'UTC';

export function isLanguage(tag: string): tag is Language {
  return (LANGUAGES as readonly string[]).includes(tag);
}

/** The shape of a language tag, for the API's description: the list itself may grow without the SDK changing. */
const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** `locale` (users) and `language` (workshops) in bodies: one of `LANGUAGES`. */
export const LanguageInput = v.pipe(
  v.string(),
  v.regex(LANGUAGE_TAG, `Expected one of ${LANGUAGES.join(', ')}.`),
  v.check(isLanguage, `Expected one of ${LANGUAGES.join(', ')}.`),
);

/** At most this many entries of an `Accept-Language` header are read. */
const MAX_RANGES = 32;
const RANGE = /^([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)$/;
const QUALITY = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * The language of `LANGUAGES` an `Accept-Language` header asks for, or undefined when it names none
 * of them (no header, `*` alone, only other languages). Ranges are taken by quality, then in the
 * order sent; each is looked up as RFC 4647 §3.4 says, dropping subtags from the end (`fr-CA` →
 * `fr`), case aside. `q=0` and malformed entries are skipped.
 */
export function negotiateLanguage(header: string | null | undefined): Language | undefined {
  if (!header) return undefined;
  const ranges: Array<{ tag: string; quality: number; order: number }> = [];
  for (const [order, entry] of header.split(',').slice(0, MAX_RANGES).entries()) {
    const [range = '', ...params] = entry.split(';').map((part) => part.trim());
    if (!RANGE.test(range)) continue;
    let quality = 1;
    for (const param of params) {
      const q = QUALITY.exec(param.replace(/\s+/g, ''));
      if (q) quality = Number(q[1]);
      else if (/^q=/i.test(param)) quality = -1;
    }
    if (quality > 0) ranges.push({ tag: range.toLowerCase(), quality, order });
  }
  ranges.sort((a, b) => b.quality - a.quality || a.order - b.order);
  for (const { tag } of ranges) {
    const found = lookup(tag);
    if (found) return found;
  }
  return undefined;
}

function lookup(range: string): Language | undefined {
  const subtags = range.split('-');
  while (subtags.length > 0) {
    const candidate = subtags.join('-');
    const found = LANGUAGES.find((language) => language.toLowerCase() === candidate);
    if (found) return found;
    subtags.pop();
    // A single-letter subtag (`x`, an extension) is dropped with the one after it, as RFC 4647 says.
    if (subtags.at(-1)?.length === 1) subtags.pop();
  }
  return undefined;
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
  v.check((name) => canonicalTimeZone(name) !== undefined, 'Expected an IANA time zone, such as Europe/Paris or UTC.'),
  v.transform((name) => canonicalTimeZone(name)!),
);
