import { and, asc, count, eq, gte } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { AppError } from '../../http/errors';
import { lockUser } from '../users/repo';

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
  const { outbox } = tablesOf(tx);
  const [row] = await tx
    .insert(outbox)
    .values({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? null })
    .returning({ id: outbox.id });
  return row!.id;
}

/**
 * Queues a mail to an address a user chose (an invitation), counted against that user's daily
 * budget: past `perDay` mails in 24 hours (0: no budget) the request answers 429 with
 * `Retry-After`, and since the caller's transaction rolls back, none of its mails is sent. The
 * count is read from the outbox itself, under a lock of the sender's row, so the budget holds
 * across instances sharing the database.
 */
export async function queueMailFrom(tx: Db, sender: { id: string; perDay: number }, mail: Mail): Promise<string> {
  const { outbox } = tablesOf(tx);
  if (sender.perDay > 0) await refuseBeyondDailyBudget(tx, sender.id, sender.perDay);
  const [row] = await tx
    .insert(outbox)
    .values({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? null, senderId: sender.id })
    .returning({ id: outbox.id });
  return row!.id;
}

async function refuseBeyondDailyBudget(tx: Db, senderId: string, perDay: number): Promise<void> {
  const { outbox } = tablesOf(tx);
  // Two requests of one user, on two instances, count one after the other.
  await lockUser(tx, senderId);
  const since = new Date(Date.now() - DAY_MS).toISOString();
  const inWindow = and(eq(outbox.senderId, senderId), gte(outbox.createdAt, since));
  const sent = (await tx.select({ n: count() }).from(outbox).where(inWindow))[0]!.n;
  if (sent >= perDay) {
    const [oldest] = await tx
      .select({ at: outbox.createdAt })
      .from(outbox)
      .where(inWindow)
      .orderBy(asc(outbox.createdAt))
      .limit(1);
    const seconds = Math.max(1, Math.ceil((Date.parse(oldest?.at ?? since) + DAY_MS - Date.now()) / 1000));
    throw new AppError('rate_limited', `At most ${perDay} invitation mails a day; the next can go in ${seconds} s.`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }
}
