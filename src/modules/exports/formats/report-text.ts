/** Wording and number formats shared by the report formats (PDF and Word). */

const FIRST_LETTER = /\p{L}/u;
const RIGHT_TO_LEFT_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;

/** Whether a paragraph reads right to left: its first letter decides, as the Unicode bidi algorithm does. */
export function readsRightToLeft(text: string): boolean {
  const letter = FIRST_LETTER.exec(text)?.[0];
  return letter !== undefined && RIGHT_TO_LEFT_LETTER.test(letter);
}

export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Averages show one decimal, the precision a 1–5 or 1–10 scale can carry. */
export function formatAverage(value: number | undefined): string {
  return value === undefined ? '–' : value.toFixed(1);
}

/** The UTC minute an ISO instant names, as `2026-11-20 09:03 UTC`: the same for every reader. */
export function formatInstant(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Who wrote a comment or item and when, `Ada, 2026-11-20 09:03 UTC`; only when, for an author the export may not name. */
export function attribution(user: string | null, iso: string): string {
  return user ? `${user}, ${formatInstant(iso)}` : formatInstant(iso);
}

const LONG_DATE = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' });

export function formatDate(iso: string): string {
  return LONG_DATE.format(new Date(iso));
}
