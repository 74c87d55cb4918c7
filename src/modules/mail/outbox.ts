import type { Db } from '../../db/database';
import { AppError } from '../../http/errors';
import { lockUser } from '../../db/user-lock';
import { insertOutboxMail, mailsSentSince, oldestMailSentSince } from './repo';
import { msg } from '../../i18n/messages';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Queues a mail in the outbox table, in the caller's transaction, so a mail exists exactly when
 * the change that caused it committed. Delivery (SMTP, or keeping it in the outbox) happens elsewhere.
 */
export async function queueMail(tx: Db, mail: Mail): Promise<string> {
  return insertOutboxMail(tx, { to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? null });
}

/**
 * Queues a mail to an address a user chose (an invitation), counted against that user's daily
 * budget: past `perDay` mails in 24 hours (0: no budget) the request answers 429 with
 * `Retry-After`, and since the caller's transaction rolls back, none of its mails is sent. The
 * count is read from the outbox itself, under a lock of the sender's row, so the budget holds
 * across instances sharing the database.
 */
export async function queueMailFrom(tx: Db, sender: { id: string; perDay: number }, mail: Mail): Promise<string> {
  if (sender.perDay > 0) await refuseBeyondDailyBudget(tx, sender.id, sender.perDay);
  return insertOutboxMail(tx, {
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? null,
    senderId: sender.id,
  });
}

async function refuseBeyondDailyBudget(tx: Db, senderId: string, perDay: number): Promise<void> {
  // Two requests of one user, on two instances, count one after the other.
  await lockUser(tx, senderId);
  const since = new Date(Date.now() - DAY_MS).toISOString();
  if ((await mailsSentSince(tx, senderId, since)) >= perDay) {
    const oldest = await oldestMailSentSince(tx, senderId, since);
    const seconds = Math.max(1, Math.ceil((Date.parse(oldest ?? since) + DAY_MS - Date.now()) / 1000));
    throw new AppError('rate_limited', msg('error.mail.invitations_rate', { max: perDay, seconds }), {
      headers: { 'Retry-After': String(seconds) },
    });
  }
}
