import type { DbOrTx } from '../../db/client';
import { outbox } from '../../db/schema/index';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Queues a mail in the outbox table, in the caller's transaction, so a mail exists exactly when
 * the change that caused it committed. Delivery (SMTP, or keeping it in the outbox) happens elsewhere.
 */
export function queueMail(tx: DbOrTx, mail: Mail): string {
  const row = tx.insert(outbox).values({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? null }).returning({ id: outbox.id }).get();
  return row.id;
}
