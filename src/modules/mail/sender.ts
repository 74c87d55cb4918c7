import type Database from 'better-sqlite3';
import nodemailer from 'nodemailer';

/** How often the outbox is looked at for mail that is due. */
const POLL_MS = 1_000;
/** Mails one instance takes at a time. */
const BATCH = 20;
/** How long a taken mail stays this instance's; past it (a crash mid-send) another may take it. */
const LEASE_MS = 120_000;
/** After this many failed attempts the mail is given up (`failed_at`), kept for a look. */
const MAX_ATTEMPTS = 10;
/** Backoff never waits longer than this between attempts. */
const MAX_BACKOFF_MS = 3_600_000;

interface OutboxRow {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  attempts: number;
}

export interface MailSenderDeps {
  config: { smtpUrl: string | undefined; mailFrom: string; mailRetryBaseMs: number };
  database: { sqlite: Database.Database };
}

export interface MailSender {
  /** Looks at the outbox now rather than at the next poll. */
  poke(): void;
  /** Stops polling and waits for the mail being sent, if any. */
  stop(): Promise<void>;
}

/**
 * Sends the outbox over SMTP (nodemailer), in the background. A mail is taken under a lease in a
 * write transaction, so two instances on one database never send it both; it is marked sent once
 * the SMTP server accepted it, or given a later attempt with backoff (doubling from
 * `mailRetryBaseMs`, capped at an hour) when it refused. A crash between the server's acceptance
 * and the mark would send it once more after the lease: the `Message-ID` stays the mail's id, so
 * that copy is recognizably the same mail. Without `SMTP_URL`, nothing runs: mail stays in the outbox.
 */
export function startMailSender(deps: MailSenderDeps): MailSender {
  const { smtpUrl, mailFrom, mailRetryBaseMs } = deps.config;
  if (!smtpUrl) return { poke() {}, async stop() {} };
  const transport = nodemailer.createTransport(smtpUrl);
  const { sqlite } = deps.database;
  const take = sqlite.prepare<[string, string, string, number], OutboxRow>(
    `UPDATE outbox SET claimed_until = ?, attempts = attempts + 1
      WHERE id IN (SELECT id FROM outbox
                    WHERE sent_at IS NULL AND failed_at IS NULL
                      AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
                      AND (claimed_until IS NULL OR claimed_until <= ?)
                    ORDER BY created_at LIMIT ?)
      RETURNING id, "to", subject, text, html, attempts`,
  );
  const markSent = sqlite.prepare<[string, string]>('UPDATE outbox SET sent_at = ?, claimed_until = NULL, last_error = NULL WHERE id = ?');
  const release = sqlite.prepare<[string]>('UPDATE outbox SET claimed_until = NULL, attempts = attempts - 1 WHERE id = ? AND sent_at IS NULL');
  const markFailed = sqlite.prepare<[string | null, string | null, string, string]>(
    'UPDATE outbox SET next_attempt_at = ?, failed_at = ?, claimed_until = NULL, last_error = ? WHERE id = ?',
  );

  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const takeDue = (): OutboxRow[] => {
    const now = new Date();
    const until = new Date(now.getTime() + LEASE_MS).toISOString();
    return sqlite.transaction(() => take.all(until, now.toISOString(), now.toISOString(), BATCH)).immediate();
  };

  const send = async (mail: OutboxRow) => {
    try {
      await transport.sendMail({
        from: mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html ? { html: mail.html } : {}),
        messageId: `<${mail.id}@outbox.workshops>`,
      });
      markSent.run(new Date().toISOString(), mail.id);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const givenUp = mail.attempts >= MAX_ATTEMPTS;
      const wait = Math.min(mailRetryBaseMs * 2 ** (mail.attempts - 1), MAX_BACKOFF_MS);
      const nextAt = givenUp ? null : new Date(Date.now() + wait).toISOString();
      markFailed.run(nextAt, givenUp ? new Date().toISOString() : null, reason.slice(0, 500), mail.id);
      console.warn(`[mail] sending to ${mail.to} failed (attempt ${mail.attempts}${givenUp ? ', giving up' : ''}): ${reason}`);
    }
  };

  const drain = async () => {
    do {
      again = false;
      let batch: OutboxRow[];
      try {
        batch = takeDue();
      } catch (err) {
        // The database busy with another instance's write: the next poll tries again.
        if (sqlite.open) console.warn(`[mail] could not read the outbox: ${(err as Error).message}`);
        return;
      }
      for (const [index, mail] of batch.entries()) {
        if (stopped) {
          // Shutting down: what this instance took and did not try goes back to the outbox now.
          for (const left of batch.slice(index)) release.run(left.id);
          return;
        }
        await send(mail);
      }
      if (batch.length === BATCH) again = true;
    } while (again && !stopped);
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain().finally(() => (running = null));
  };

  const timer = setInterval(run, POLL_MS);
  timer.unref();
  setImmediate(run);
  return {
    poke: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      transport.close();
    },
  };
}
