import { Cron } from 'croner';
import type { Config } from '../../config';
import { accessKey, findAccesses } from '../access/load';
import { countsSeenBy } from '../events/log';
import { workshopPublicUrl } from '../../domain/workshops';
import { t } from '../../i18n/messages';
import { mailDateTime, mailLanguage } from './language';
import { queueMail, type Mail } from './outbox';
import { renderMail } from './templates';
import type { Database } from '../../db/database';
import {
  claimDigestDay,
  hasActivity,
  lastUtcDigestAt,
  membersWithAddress,
  timeZonesWithAddress,
  workshopsWithDailyMail,
} from './repo';
import { isConnectionLost, isUnavailable } from '../../db/errors';
import { dayBefore, instantAt, wallClock } from '../../lib/zoned-time';

/**
 * When the digest goes out: at 07:00 in each person's time zone (docs/api.md#languages-and-time-zones),
 * looked for every quarter of an hour, since some zones are a quarter or a half off the hour
 * (Asia/Kathmandu, +05:45).
 */
const DIGEST_TICK = '*/15 * * * *';
const DIGEST_HOUR = 7;

/** What a digest counts, by the log's actions, each said in its reader's language. */
const COUNTED = {
  addCard: (lang: string, count: number) => t(lang, 'mail.digest.cards', { count }),
  addVote: (lang: string, count: number) => t(lang, 'mail.digest.votes', { count }),
  addComment: (lang: string, count: number) => t(lang, 'mail.digest.comments', { count }),
} as const;
type Counted = keyof typeof COUNTED;

export interface DigestDeps {
  config: Pick<Config, 'publicUrl'>;
  database: Database;
}

export interface DigestReport {
  /** False when no time zone was due, or every due one was sent already (by an earlier run, on any instance). */
  ran: boolean;
  /** The time zones whose digest this run queued, by name. */
  zones: string[];
  /** The workshops mailed about, and the mails queued. */
  workshops: number;
  mails: number;
  /**
   * Another instance has claimed a zone's day and not committed yet: it may still roll back,
   * leaving that day unsent (`runDailyDigest` looks again).
   */
  claimInFlight?: true;
}

/** A zone's digest of one day: its claim in `digest_runs` (`"<date>|<zone>"`) and the span it covers. */
export interface DueDigest {
  zone: string;
  claim: string;
  since: string;
  until: string;
}

/**
 * The zone's digest due at `now`, if any: once its clocks have passed 07:00, that date's, covering
 * the day up to it (from 07:00 the date before: 24 hours, or 23 or 25 across a change of the
 * clocks, so the days follow each other without a gap or an overlap).
 */
export function dueDigest(zone: string, now: Date): DueDigest | undefined {
  const { date, msOfDay } = wallClock(zone, now);
  const until = instantAt(zone, date, DIGEST_HOUR);
  if (msOfDay < DIGEST_HOUR * 3600_000 || until > now) return undefined;
  const since = instantAt(zone, dayBefore(date), DIGEST_HOUR);
  return { zone, claim: `${date}|${zone}`, since: since.toISOString(), until: until.toISOString() };
}

/**
 * Queues the daily digests due at `now` (`dueDigest`): for each time zone people with an address
 * live in, whose 07:00 has passed and whose date has not been sent, the digest of every running
 * workshop with `daily_mail` on, to its members in that zone. A zone's date is claimed first, in
 * the same transaction as its mails, so whichever instance runs first sends it and the others, or a
 * later run, send nothing. Every due zone is tried; the first failure is thrown after.
 */
export async function queueDailyDigests(deps: DigestDeps, now = new Date()): Promise<DigestReport> {
  const report: DigestReport = { ran: false, zones: [], workshops: 0, mails: 0 };
  const mailedAbout = new Set<string>();
  let failure: Error | undefined;
  for (const zone of await timeZonesWithAddress(deps.database.db)) {
    try {
      // Inside the try: a stored zone the runtime's ICU no longer knows fails that zone alone.
      const due = dueDigest(zone, now);
      if (!due) continue;
      const outcome = await queueZoneDigest(deps, due, now);
      if (outcome === 'in flight') report.claimInFlight = true;
      if (typeof outcome !== 'object') continue;
      report.ran = true;
      report.zones.push(zone);
      report.mails += outcome.mails;
      for (const id of outcome.workshops) mailedAbout.add(id);
    } catch (err) {
      failure ??= err instanceof Error ? err : new Error(String(err));
    }
  }
  if (failure !== undefined) throw failure;
  return { ...report, workshops: mailedAbout.size };
}

/**
 * One zone's digest: the new cards, votes and comments of its day, to each member living there,
 * counting only what that member may see of them in the workshop's log now (a private step hides
 * other participants' cards and all about them; hidden votes leave a participant their own). A
 * member who may see none of them, and a workshop without any that day, get no mail.
 */
function queueZoneDigest(
  deps: DigestDeps,
  due: DueDigest,
  now: Date,
): Promise<{ workshops: string[]; mails: number } | 'sent before' | 'in flight'> {
  let claiming = false;
  return deps.database
    .transaction(async (tx) => {
      claiming = true;
      const claimed = await claimDigestDay(tx, due.claim, now.toISOString());
      claiming = false;
      if (!claimed) return 'sent before' as const;
      // What the one digest of 07:00 UTC (before digests followed time zones) told is not told again.
      const lastUtc = await lastUtcDigestAt(tx);
      const window = { since: lastUtc !== null && lastUtc > due.since ? lastUtc : due.since, until: due.until };
      const workshops: string[] = [];
      let mails = 0;
      for (const workshop of await workshopsWithDailyMail(tx, due.zone)) {
        // A quiet workshop costs this one look; the counts are each reader's own.
        if (!(await hasActivity(tx, workshop.id, Object.keys(COUNTED), window))) continue;
        const link = workshopPublicUrl(deps.config, workshop.id);
        const recipients = await membersWithAddress(tx, workshop.id, due.zone);
        const accesses = await findAccesses(
          tx,
          recipients.map((member) => ({ workshopId: workshop.id, userId: member.id })),
        );
        const readers = [...accesses.values()];
        const seen = await countsSeenBy(tx, workshop.id, readers, Object.keys(COUNTED) as Counted[], window);
        let mailed = false;
        for (const member of recipients) {
          const counts = seen.get(member.id);
          if (!accesses.has(accessKey(workshop.id, member.id)) || !counts || counts.size === 0) continue;
          mailed = true;
          await queueMail(tx, digestMail(member, { ...window, zone: due.zone }, workshop, link, counts));
          mails += 1;
        }
        if (mailed) workshops.push(workshop.id);
      }
      return { workshops, mails };
    })
    .catch((err: unknown) => {
      // On PostgreSQL the claim waits on another instance's claim of the zone's day, not yet
      // committed (its digest is being queued), and gives up after the lock wait: that instance is
      // on it. The database answering but busy, not away: a lost connection is still an error.
      if (claiming && isUnavailable(err) && !isConnectionLost(err)) return 'in flight' as const;
      throw err;
    });
}

/**
 * One member's digest: in their locale, the day it covers on their clock (`day.zone` is theirs),
 * and each count a whole phrase with its plural.
 */
function digestMail(
  member: { email: string | null; name: string; locale: string },
  day: { since: string; until: string; zone: string },
  workshop: { title: string },
  link: string,
  counts: ReadonlyMap<string, number>,
): Mail {
  const lang = mailLanguage(member.locale);
  const lines = (Object.keys(COUNTED) as Counted[]).map(
    (action) => `- ${COUNTED[action](lang, counts.get(action) ?? 0)}`,
  );
  const span = { since: mailDateTime(lang, day.zone, day.since), until: mailDateTime(lang, day.zone, day.until) };
  return {
    to: member.email!,
    subject: t(lang, 'mail.digest.subject', { title: workshop.title }),
    ...renderMail(lang, {
      greeting: t(lang, 'mail.greeting.named', { name: member.name }),
      paragraphs: [`${t(lang, 'mail.digest.intro', { ...span, title: workshop.title })}\n${lines.join('\n')}`],
      action: { label: t(lang, 'mail.digest.action'), url: link },
      footer: t(lang, 'mail.digest.footer'),
    }),
  };
}

export interface DigestRetries {
  /** How long to wait before looking again. */
  afterMs: number;
  /** Tries in all, the first included. */
  tries: number;
}

/** Ten minutes of looking again, once a minute: an outage or a failed instance rarely lasts longer. */
const DIGEST_RETRIES: DigestRetries = { afterMs: 60_000, tries: 10 };

/**
 * Queues the digests due at `now`, and looks again (at the same `now`) while some could not be:
 * the store away, or another instance's claim of a zone's day in flight, which may roll back. The
 * claims make every look after one that committed send nothing more, on any instance.
 */
export async function runDailyDigest(
  deps: DigestDeps,
  now = new Date(),
  retries = DIGEST_RETRIES,
): Promise<DigestReport> {
  const total: DigestReport = { ran: false, zones: [], workshops: 0, mails: 0 };
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= retries.tries;
    try {
      const report = await queueDailyDigests(deps, now);
      total.ran ||= report.ran;
      total.zones.push(...report.zones);
      total.workshops += report.workshops;
      total.mails += report.mails;
      if (!report.claimInFlight) return total;
      if (last) return { ...total, claimInFlight: true };
    } catch (err) {
      if (last) throw err;
      console.error(
        `[digest] could not queue the daily digest; trying again in ${Math.round(retries.afterMs / 1000)} s`,
        err,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, retries.afterMs));
  }
}

/**
 * Looks for the digests due every quarter of an hour (the mail sender, or the outbox, takes them
 * from there). A look still running when the next is due is not doubled.
 */
export function scheduleDailyDigest(deps: DigestDeps): () => void {
  const job = new Cron(DIGEST_TICK, { timezone: 'UTC', protect: true }, async () => {
    try {
      const report = await runDailyDigest(deps);
      if (report.ran) {
        console.log(
          `[digest] queued ${report.mails} mails for ${report.workshops} workshops (${report.zones.join(', ')})`,
        );
      }
    } catch (err) {
      console.error('[digest] could not queue the daily digest', err);
    }
  });
  return () => job.stop();
}
