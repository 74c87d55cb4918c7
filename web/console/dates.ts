/*
 * The moments the console shows, written by `Intl` in the console's language and the account's
 * `time_zone` (docs/i18n.md#which-language): a workshop made "28 Nov 2026" reads the same day on
 * every device of the account.
 */
import { pageIntl } from '../shared/i18n';
import { language } from './i18n';
import { me } from './session';

function format(when: string | number | Date, options: Intl.DateTimeFormatOptions): string {
  // Read so a view showing a moment is drawn again in a new language.
  void language.value;
  const date = new Date(when);
  try {
    return new Intl.DateTimeFormat(pageIntl(), { ...options, timeZone: me.value?.time_zone }).format(date);
  } catch {
    // A zone this browser does not know: the device's.
    return new Intl.DateTimeFormat(pageIntl(), options).format(date);
  }
}

/** A day: "28 Nov 2026", "28 nov. 2026". */
export const dayOf = (when: string | number | Date) => format(when, { dateStyle: 'medium' });
/** A day and its time: "28 Nov 2026, 14:05". */
export const momentOf = (when: string | number | Date) => format(when, { dateStyle: 'medium', timeStyle: 'short' });
/** A time of day: "14:05". */
export const timeOf = (when: string | number | Date) => format(when, { timeStyle: 'short' });
