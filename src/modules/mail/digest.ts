import { Cron } from 'croner';
import type { Config } from '../../config';
import { accessKey, findAccesses } from '../access/load';
import { countsSeenBy } from '../events/log';
import { workshopPublicUrl } from '../../domain/workshops';
import { queueMail } from './outbox';
import { renderMail } from './templates';
import type { Database } from '../../db/database';
import { claimDigestDay, hasActivity, membersWithAddress, workshopsWithDailyMail } from './repo';
import { isConnectionLost, isUnavailable } from '../../db/errors';

/** When the digest goes out: every day at 07:00 UTC, covering the 24 hours before. */
const DIGEST_SCHEDULE = '0 7 * * *';
const DAY_MS = 24 * 3600 * 1000;

/** What a digest counts, by the log's actions. */
const COUNTED = { addCard: 'new cards', addVote: 'votes', addComment: 'comments' } as const;
type Counted = keyof typeof COUNTED;

export interface DigestDeps {
  config: Pick<Config, 'publicUrl'>;
  database: Database;
}

export interface DigestReport {
  /** False when another instance (or an earlier run) already sent this day's digest. */
  ran: boolean;
  workshops: number;
  mails: number;
  /**
   * Another instance has claimed the day and not committed yet: it may still roll back, leaving
   * the day unsent (`runDailyDigest` looks again).
   */
  claimInFlight?: true;
}

const notRun = (): DigestReport => ({ ran: false, workshops: 0, mails: 0 });

/**
 * Queues the daily digest of every running workshop with `daily_mail` on: the new cards, votes and
 * comments of the 24 hours before `now`, to each member, counting only what that member may see
 * of them in the workshop's log now (a private step hides other participants' cards and all about
 * them; hidden votes leave a participant their own). A member who may see none of them, and a
 * workshop without any that day, get no mail. The day (UTC, of `now`) is claimed first, in the same transaction as the mails, so
 * whichever instance runs first sends it and the others, or a second run, send nothing.
 */
export function queueDailyDigests(deps: DigestDeps, now = new Date()): Promise<DigestReport> {
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const until = now.toISOString();
  const day = until.slice(0, 10);

  let claiming = false;
  return deps.database
    .transaction(async (tx): Promise<DigestReport> => {
      claiming = true;
      const claimed = await claimDigestDay(tx, day, until);
      claiming = false;
      if (!claimed) return notRun();
      let workshopCount = 0;
      let mails = 0;
      const workshopsToMail = await workshopsWithDailyMail(tx);
      for (const workshop of workshopsToMail) {
        // A quiet workshop costs this one look; the counts are each reader's own.
        if (!(await hasActivity(tx, workshop.id, Object.keys(COUNTED), { since, until }))) continue;
        const link = workshopPublicUrl(deps.config, workshop.id);
        const recipients = await membersWithAddress(tx, workshop.id);
        const accesses = await findAccesses(
          tx,
          recipients.map((member) => ({ workshopId: workshop.id, userId: member.id })),
        );
        const readers = [...accesses.values()];
        const seen = await countsSeenBy(tx, workshop.id, readers, Object.keys(COUNTED) as Counted[], { since, until });
        let mailed = false;
        for (const member of recipients) {
          const counts = seen.get(member.id);
          if (!accesses.has(accessKey(workshop.id, member.id)) || !counts || counts.size === 0) continue;
          const lines = (Object.keys(COUNTED) as Counted[]).map(
            (action) => `- ${counts.get(action) ?? 0} ${COUNTED[action]}`,
          );
          mailed = true;
          await queueMail(tx, {
            to: member.email!,
            subject: `What happened in "${workshop.title}" yesterday`,
            ...renderMail({
              greeting: `Hello ${member.name},`,
              paragraphs: [`In the last day, "${workshop.title}" had:\n${lines.join('\n')}`],
              action: { label: 'Open the workshop', url: link },
              footer: "You get this mail because the workshop's daily mail is on; its facilitators can turn it off.",
            }),
          });
          mails += 1;
        }
        if (mailed) workshopCount += 1;
      }
      return { ran: true, workshops: workshopCount, mails };
    })
    .catch((err: unknown) => {
      // On PostgreSQL the claim waits on another instance's claim of the day, not yet committed
      // (its digest is being queued), and gives up after the lock wait: that instance is on it. The
      // database answering but busy, not away: a lost connection is still an error.
      if (claiming && isUnavailable(err) && !isConnectionLost(err)) return { ...notRun(), claimInFlight: true };
      throw err;
    });
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
 * Queues the digest of the day of `now`, and queues it again (for the same 24 hours) while it could
 * not: the store away, or another instance's claim of the day in flight, which may roll back. The
 * claim makes every try after one that committed send nothing, on any instance.
 */
export async function runDailyDigest(
  deps: DigestDeps,
  now = new Date(),
  retries = DIGEST_RETRIES,
): Promise<DigestReport> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= retries.tries;
    try {
      const report = await queueDailyDigests(deps, now);
      if (!report.claimInFlight || last) return report;
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

/** Queues the digest every day at 07:00 UTC (the mail sender, or the outbox, takes it from there). */
export function scheduleDailyDigest(deps: DigestDeps): () => void {
  const job = new Cron(DIGEST_SCHEDULE, { timezone: 'UTC' }, async () => {
    try {
      const report = await runDailyDigest(deps);
      if (report.ran) console.log(`[digest] queued ${report.mails} mails for ${report.workshops} workshops`);
    } catch (err) {
      console.error('[digest] could not queue the daily digest', err);
    }
  });
  return () => job.stop();
}
