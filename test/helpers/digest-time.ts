import { dayAfter, instantAt, wallClock } from '../../src/lib/zoned-time';

/*
 * When the daily digest of a time zone is due (docs/api.md#languages-and-time-zones): tests run
 * the digest with an injected clock, a minute after the next 07:00 there, so that what they just
 * wrote falls in the day that digest covers.
 */

/** The first 07:00 in `zone` after `after`. */
export function sevenAmAfter(zone: string, after = new Date()): Date {
  const { date } = wallClock(zone, after);
  const today = instantAt(zone, date, 7);
  if (today > after) return today;
  return instantAt(zone, dayAfter(date), 7);
}

/** A minute after the next 07:00 in `zone` (UTC unless told), plus `days` days: a digest covering what was just written, or a later one. */
export function digestTime(zone = 'UTC', days = 0): Date {
  return new Date(sevenAmAfter(zone).getTime() + days * 24 * 3600 * 1000 + 60_000);
}
