import nodemailer from 'nodemailer';
import type { Database } from '../../db/database';
import { isUnavailable } from '../../db/errors';
import { markMailFailed, markMailSent, takeDueMail, type TakenMail } from './repo';

/**
 * SMTP connection, greeting and socket timeouts: together far shorter than the default lease
 * (`Config.mailLeaseMs`: how long a taken mail stays this instance's; past it, a crash mid-send,
 * another may take it). Mails are taken one at a time, so with such a lease it never runs out
 * while its mail is still being sent.
 */
const SMTP_TIMEOUT_MS = 20_000;
/** Marking a mail sent waits for the write lock this long, a few times, before leaving it to the lease. */
const MARK_TRIES = 5;
/** After this many failed attempts the mail is given up (`failed_at`), kept for a look. */
const MAX_ATTEMPTS = 10;
/** Backoff never waits longer than this between attempts. */
const MAX_BACKOFF_MS = 3_600_000;

export interface MailSenderDeps {
  config: {
    smtpUrl: string | undefined;
    mailFrom: string;
    mailRetryBaseMs: number;
    mailLeaseMs: number;
    /** How often the outbox is looked at for mail that is due. */
    mailPollMs: number;
  };
  database: Database;
}

export interface MailSender {
  /** Stops polling and waits for the mail being sent, if any. */
  stop(): Promise<void>;
}

/**
 * Sends the outbox over SMTP (nodemailer), in the background. A mail is taken, one at a time, under
 * a lease in a write transaction, so two instances on one database never send it both; it is
 * marked sent (only while the lease is still this taking's) once the SMTP server accepted it, or
 * given a later attempt with backoff (doubling from
 * `mailRetryBaseMs`, capped at an hour) when it refused. A crash between the server's acceptance
 * and the mark would send it once more after the lease: the `Message-ID` stays the mail's id, so
 * that copy is recognizably the same mail. Without `SMTP_URL`, nothing runs: mail stays in the outbox.
 */
export function startMailSender(deps: MailSenderDeps): MailSender {
  const { smtpUrl, mailFrom, mailRetryBaseMs, mailLeaseMs, mailPollMs } = deps.config;
  if (!smtpUrl) return { async stop() {} };
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  const { database } = deps;

  let stopped = false;
  let running: Promise<void> | null = null;

  /** The next due mail, taken under a lease of its own; undefined when none is due. */
  const takeNext = (): Promise<TakenMail | undefined> => {
    const now = new Date();
    // Unique to this taking: the lease's end, made distinct by a nonce in its sub-millisecond part.
    const claim = `${new Date(now.getTime() + mailLeaseMs).toISOString()}~${Math.random().toString(36).slice(2, 10)}`;
    const at = now.toISOString();
    return database.transaction((tx) => takeDueMail(tx, at, claim));
  };

  /** Records a delivery (sent, or failed) while the row still holds this taking's claim. */
  const markSent = (mail: TakenMail) => database.transaction((tx) => markMailSent(tx, mail, new Date().toISOString()));
  const markFailed = (
    mail: TakenMail,
    outcome: { nextAttemptAt: string | null; failedAt: string | null; lastError: string },
  ) => database.transaction((tx) => markMailFailed(tx, mail, outcome));

  /** Writes a mark, waiting out another writer's lock a few times; false when it never got it. */
  const mark = async (write: () => Promise<void>): Promise<boolean> => {
    for (let attempt = 1; attempt <= MARK_TRIES; attempt++) {
      try {
        await write();
        return true;
      } catch (err) {
        if (!isUnavailable(err) || attempt === MARK_TRIES) {
          console.error('[mail] could not record a delivery; the lease will hand the mail on', err);
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
    return false;
  };

  const send = async (mail: TakenMail) => {
    let failure: string | null = null;
    try {
      await transport.sendMail({
        from: mailFrom,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html ? { html: mail.html } : {}),
        messageId: `<${mail.id}@outbox.workshops>`,
      });
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
    // The server's answer is known: recording it is another matter (the database may be busy).
    if (failure === null) {
      await mark(() => markSent(mail));
      return;
    }
    const givenUp = mail.attempts >= MAX_ATTEMPTS;
    const wait = Math.min(mailRetryBaseMs * 2 ** (mail.attempts - 1), MAX_BACKOFF_MS);
    const nextAt = givenUp ? null : new Date(Date.now() + wait).toISOString();
    await mark(() =>
      markFailed(mail, {
        nextAttemptAt: nextAt,
        failedAt: givenUp ? new Date().toISOString() : null,
        lastError: failure.slice(0, 500),
      }),
    );
    console.warn(
      `[mail] sending to ${mail.to} failed (attempt ${mail.attempts}${givenUp ? ', giving up' : ''}): ${failure}`,
    );
  };

  const drain = async () => {
    while (!stopped) {
      let mail: TakenMail | undefined;
      try {
        mail = await takeNext();
      } catch (err) {
        // The database busy with another instance's write: the next poll tries again.
        if (!stopped) console.warn(`[mail] could not read the outbox: ${(err as Error).message}`);
        return;
      }
      if (!mail) return;
      await send(mail);
    }
  };

  const run = () => {
    if (stopped || running) return;
    running = drain()
      .catch((err) => console.error('[mail] the sender failed; it goes on at the next poll', err))
      .finally(() => (running = null));
  };

  const timer = setInterval(run, mailPollMs);
  timer.unref();
  setImmediate(run);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      transport.close();
    },
  };
}
