import { nowIso } from '../../db/columns';
import type { Database } from '../../db/database';
import { unsentMailsSince } from './repo';

/** How often the outbox is looked at for new mail. */
const EVERY_MS = 1_000;
/**
 * How far back each look reads. A mail's `created_at` (like PostgreSQL's row number) is given when
 * it is queued, not when its transaction commits, so a mail may appear after later ones: each look
 * reads the mails queued in this window and prints those not printed yet. Transactions end well
 * within it (their statements and idle time are limited to seconds).
 */
const WINDOW_MS = 60_000;

/**
 * Without SMTP, mail stays in the `outbox` table; in development nobody would see a confirmation
 * link. This prints each newly queued mail's recipient, subject and links to the log (the mail
 * itself stays in the outbox). Mail queued before it starts is not printed. Returns the stop function.
 */
export function logQueuedMail(database: Database, log: (line: string) => void = console.log): () => void {
  const { db } = database;
  const startedAt = nowIso();
  /** The mails printed, by id, with when they were queued: forgotten once they leave the window. */
  const printed = new Map<string, string>();
  let looking = false;
  let stopped = false;

  const look = async () => {
    const windowStart = new Date(Date.now() - WINDOW_MS).toISOString();
    const since = windowStart > startedAt ? windowStart : startedAt;
    const queued = await unsentMailsSince(db, since);
    for (const [id, createdAt] of printed) if (createdAt < since) printed.delete(id);
    for (const mail of queued) {
      if (printed.has(mail.id)) continue;
      printed.set(mail.id, mail.createdAt);
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
