import type Database from 'better-sqlite3';

/** How often the outbox is looked at for new mail. */
const EVERY_MS = 1_000;

/**
 * Without SMTP, mail stays in the `outbox` table; in development nobody would see a confirmation
 * link. This prints each newly queued mail's recipient, subject and links to the log (the mail
 * itself stays in the outbox). Returns the stop function.
 */
export function logQueuedMail(sqlite: Database.Database, log: (line: string) => void = console.log): () => void {
  const newer = sqlite.prepare<[number], { rowid: number; to: string; subject: string; text: string }>(
    'SELECT rowid, "to", subject, text FROM outbox WHERE rowid > ? AND sent_at IS NULL ORDER BY rowid',
  );
  let seen = sqlite.prepare<[], number>('SELECT coalesce(max(rowid), 0) FROM outbox').pluck().get() ?? 0;
  const timer = setInterval(() => {
    try {
      for (const mail of newer.all(seen)) {
        seen = mail.rowid;
        const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
        log(`[mail] to ${mail.to}: ${mail.subject}${links.length > 0 ? ` — ${links.join(' ')}` : ''}`);
      }
    } catch (err) {
      // The database closing under a last tick at shutdown is not worth a crash.
      if (sqlite.open) console.error('[mail] could not read the outbox', err);
    }
  }, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
