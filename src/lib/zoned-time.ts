/*
 * Wall-clock dates and times in an IANA time zone, with nothing but `Intl` (the runtime's ICU
 * knows the zones and their daylight saving rules): what a person's clock reads at an instant, and
 * the instant at which it reads a given hour of a given date.
 */

/** A calendar date as `YYYY-MM-DD`. */
export type LocalDate = string;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, format);
  }
  return format;
}

/** What a clock in `zone` reads at `at`: its date, and the milliseconds since that date's midnight. */
export function wallClock(zone: string, at: Date): { date: LocalDate; msOfDay: number } {
  const parts: Record<string, number> = {};
  for (const part of formatIn(zone).formatToParts(at)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  const date = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return { date, msOfDay: ((hour * 60 + minute) * 60 + second) * 1000 + at.getUTCMilliseconds() };
}

/** How far `zone`'s clocks are ahead of UTC at `at`, in milliseconds. */
function offsetAt(zone: string, at: number): number {
  const { date, msOfDay } = wallClock(zone, new Date(at));
  return Date.parse(`${date}T00:00:00Z`) + msOfDay - at;
}

/**
 * The instant at which clocks in `zone` read `hour`:00 on `date`. Two looks at the offset: the one
 * before that hour, and the one after it, should the clocks have changed between. An hour the
 * clocks skip (a spring-forward at that hour) gives the instant just after the change.
 */
export function instantAt(zone: string, date: LocalDate, hour: number): Date {
  const asIfUtc = Date.parse(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);
  const first = asIfUtc - offsetAt(zone, asIfUtc);
  return new Date(asIfUtc - offsetAt(zone, first));
}

const DAY_MS = 24 * 3600 * 1000;
const shifted = (date: LocalDate, days: number): LocalDate =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The date before `date`. */
export const dayBefore = (date: LocalDate): LocalDate => shifted(date, -1);
/** The date after `date`. */
export const dayAfter = (date: LocalDate): LocalDate => shifted(date, 1);
