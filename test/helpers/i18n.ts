/*
 * What the console's language tests share besides the pseudo-locale's check (helpers/pseudo.ts):
 * a day as the console writes it.
 */

/** A day as the console writes it: `Intl` in the language's locale, in the account's time zone. */
export const dayIn = (locale: string, timeZone: string, iso: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone }).format(new Date(iso));
