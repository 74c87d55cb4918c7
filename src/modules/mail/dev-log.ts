import { sql } from 'drizzle-orm';
import type { Database } from '../../db/database';
import { queryRow, queryRows } from '../../db/sql';

/** How often the outbox is looked at for new mail. */
const EVERY_MS = 1_000;

/**
 * Without SMTP, mail stays in the `outbox` table; in development nobody would see a confirmation
 * link. This prints each newly queued mail's recipient, subject and links to the log (the mail
 * itself stays in the outbox). Returns the stop function.
 */
export function logQueuedMail(database: Database, log: (line: string) => void = console.log): () => void {
  const { db } = database;
  // Where the log starts: mail queued before it is not printed. Read by the first look, at once.
  let seen: number | null = null;
  let looking = false;
  let stopped = false;

  const look = async () => {
    if (seen === null) {
      const last = await queryRow<{ last: number | string }>(db, sql`SELECT coalesce(max(rowid), 0) AS last FROM outbox`);
      seen = Number(last?.last ?? 0);
      return;
    }
    const newer = await queryRows<{ rowid: number | string; to: string; subject: string; text: string }>(
      db,
      sql`SELECT rowid, "to", subject, text FROM outbox WHERE rowid > ${seen} AND sent_at IS NULL ORDER BY rowid`,
    );
    for (const mail of newer) {
      seen = Number(mail.rowid);
      const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
      log(`[mail] to ${mail.to}: ${mail.subject}${links.length > 0 ? ` — ${links.join(' ')}` : ''}`);
    }
  };

  // One look at a time: a slow one is not overtaken by the next tick.
  const tick = () => {
    if (looking || stopped) return;
    looking = true;
    look()
      .catch((err) => {
        // The database closing under a last tick at shutdown is not worth a crash.
        if (!stopped) console.error('[mail] could not read the outbox', err);
      })
      .finally(() => (looking = false));
  };

  tick();
  const timer = setInterval(tick, EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
