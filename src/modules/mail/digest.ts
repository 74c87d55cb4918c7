import type Database from 'better-sqlite3';
import { Cron } from 'croner';
import type { Config } from '../../config';
import { workshopPublicUrl } from '../workshops/output';
import { queueMail } from './outbox';
import { renderMail } from './templates';
import type { Db } from '../../db/client';

/** When the digest goes out: every day at 07:00 UTC, covering the 24 hours before. */
const DIGEST_SCHEDULE = '0 7 * * *';
const DAY_MS = 24 * 3600 * 1000;

/** What a digest counts, by the log's actions. */
const COUNTED = { addCard: 'new cards', addVote: 'votes', addComment: 'comments' } as const;
type Counted = keyof typeof COUNTED;

export interface DigestDeps {
  config: Pick<Config, 'publicUrl'>;
  database: { db: Db; sqlite: Database.Database };
}

export interface DigestReport {
  /** False when another instance (or an earlier run) already sent this day's digest. */
  ran: boolean;
  workshops: number;
  mails: number;
}

/**
 * Queues the daily digest of every running workshop with `daily_mail` on: the new cards, votes and
 * comments of the 24 hours before `now`, to each member. A workshop without any of those that day
 * gets no mail. The day (UTC, of `now`) is claimed first, in the same transaction as the mails, so
 * whichever instance runs first sends it and the others, or a second run, send nothing.
 */
export function queueDailyDigests(deps: DigestDeps, now = new Date()): DigestReport {
  const { sqlite } = deps.database;
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const until = now.toISOString();
  const day = until.slice(0, 10);
  const claim = sqlite.prepare<[string, string]>('INSERT INTO digest_runs (day, started_at) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const workshopsToMail = sqlite.prepare<[], { id: string; title: string }>("SELECT id, title FROM workshops WHERE daily_mail = 1 AND state = 'running'");
  const activity = sqlite.prepare<[string, string, string], { action: Counted; n: number }>(
    `SELECT action, count(*) AS n FROM events
      WHERE workshop_id = ? AND created_at >= ? AND created_at < ? AND action IN (${Object.keys(COUNTED).map((action) => `'${action}'`).join(', ')})
      GROUP BY action`,
  );
  const recipients = sqlite.prepare<[string], { email: string; name: string }>(
    'SELECT u.email, u.name FROM workshop_members m JOIN users u ON u.id = m.user_id WHERE m.workshop_id = ? ORDER BY u.email',
  );

  return sqlite
    .transaction((): DigestReport => {
      if (claim.run(day, until).changes === 0) return { ran: false, workshops: 0, mails: 0 };
      let workshops = 0;
      let mails = 0;
      for (const workshop of workshopsToMail.all()) {
        const counts = new Map(activity.all(workshop.id, since, until).map((row) => [row.action, row.n]));
        if (counts.size === 0) continue;
        workshops += 1;
        const lines = (Object.keys(COUNTED) as Counted[]).map((action) => `- ${counts.get(action) ?? 0} ${COUNTED[action]}`);
        const link = workshopPublicUrl(deps.config, workshop.id);
        for (const member of recipients.all(workshop.id)) {
          queueMail(deps.database.db, {
            to: member.email,
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
      }
      return { ran: true, workshops, mails };
    })
    .immediate();
}

/** Queues the digest every day at 07:00 UTC (the mail sender, or the outbox, takes it from there). */
export function scheduleDailyDigest(deps: DigestDeps): () => void {
  const job = new Cron(DIGEST_SCHEDULE, { timezone: 'UTC' }, () => {
    try {
      const report = queueDailyDigests(deps);
      if (report.ran) console.log(`[digest] queued ${report.mails} mails for ${report.workshops} workshops`);
    } catch (err) {
      console.error('[digest] could not queue the daily digest', err);
    }
  });
  return () => job.stop();
}
