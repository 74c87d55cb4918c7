import { appMessages, t } from '../../../i18n/messages';

/*
 * Wording and number formats shared by the report formats, in the workshop's language
 * (docs/i18n.md#which-language): the words come from the `export` messages, dates and numbers
 * from `Intl` in that language. English keeps the forms its reports always had: `23 November
 * 2026` and `2026-11-20 09:03 UTC`, which no reader anywhere misreads.
 */

const FIRST_LETTER = /\p{L}/u;
const RIGHT_TO_LEFT_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;

/** Whether a paragraph reads right to left: its first letter decides, as the Unicode bidi algorithm does. */
export function readsRightToLeft(text: string): boolean {
  const letter = FIRST_LETTER.exec(text)?.[0];
  return letter !== undefined && RIGHT_TO_LEFT_LETTER.test(letter);
}

/** The locale `Intl` formats `lang` with (`Messages.intlLocale`). */
export const intlLocale = (lang: string): string => appMessages().intlLocale(lang);

const formatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();

function cached<F extends Intl.DateTimeFormat | Intl.NumberFormat>(key: string, make: () => F): F {
  let formatter = formatters.get(key) as F | undefined;
  if (!formatter) formatters.set(key, (formatter = make()));
  return formatter;
}

/** Averages show one decimal, the precision a 1–5 or 1–10 scale can carry. */
export function formatAverage(lang: string, value: number | undefined): string {
  if (value === undefined) return '–';
  const locale = intlLocale(lang);
  return cached(`average ${locale}`, () =>
    Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false }),
  ).format(value);
}

/** A whole number (a score, a count) in the language's digits, without grouping, as the figures beside it. */
export function formatNumber(lang: string, value: number): string {
  const locale = intlLocale(lang);
  return cached(`number ${locale}`, () => Intl.NumberFormat(locale, { useGrouping: false })).format(value);
}

/** The UTC minute an ISO instant names, `2026-11-20 09:03 UTC` in English: the same for every reader. */
export function formatInstant(lang: string, iso: string): string {
  const locale = intlLocale(lang);
  const when =
    locale === 'en'
      ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}`
      : cached(`instant ${locale}`, () =>
          Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'short', hourCycle: 'h23', timeZone: 'UTC' }),
        ).format(new Date(iso));
  return t(lang, 'export.instant_utc', { when });
}

/** Who wrote a comment or item and when, `Ada, 2026-11-20 09:03 UTC`; only when, for an author the export may not name. */
export function attribution(lang: string, user: string | null, iso: string): string {
  const when = formatInstant(lang, iso);
  return user ? t(lang, 'export.attribution', { who: user, when }) : when;
}

/** A day, `23 November 2026` in English. */
export function formatDate(lang: string, iso: string): string {
  const locale = intlLocale(lang);
  return cached(`date ${locale}`, () =>
    Intl.DateTimeFormat(locale === 'en' ? 'en-GB' : locale, { dateStyle: 'long', timeZone: 'UTC' }),
  ).format(new Date(iso));
}
