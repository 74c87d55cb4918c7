import { SOURCE_LANGUAGE } from '../../i18n/catalog';
import { appMessages } from '../../i18n/messages';
import { isLanguage } from '../../domain/languages';

/*
 * Which language a mail is written in (docs/i18n.md#which-language): its reader's locale when the
 * reader has an account, else the language of the workshop it is about, else English.
 */

/** The first of `choices` the catalogs speak (a person's locale, then a workshop's language), else English. */
export function mailLanguage(...choices: (string | null | undefined)[]): string {
  return choices.find((tag): tag is string => !!tag && isLanguage(tag)) ?? SOURCE_LANGUAGE;
}

/**
 * A moment as its reader reads it: in their language's words and on their time zone's clock
 * (`withZone`: the zone's name after it, for a reader who may not think of their own). A zone the
 * runtime's ICU no longer knows falls back to UTC, named.
 */
export function mailDateTime(lang: string, timeZone: string, at: Date | string, withZone = false): string {
  const locale = appMessages().intlLocale(lang);
  const options: Intl.DateTimeFormatOptions = {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    hour: 'numeric',
    minute: '2-digit',
    ...(withZone ? { timeZoneName: 'short' } : {}),
  };
  try {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(new Date(at));
  } catch {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC', timeZoneName: 'short' }).format(new Date(at));
  }
}
