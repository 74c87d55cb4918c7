import { and, asc, count, eq, gte, inArray, isNotNull, isNull, lt, lte, notLike, or, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { forUpdate } from '../../db/sql';

/** A mail as the outbox keeps it; `senderId` names the user whose daily budget it counts against. */
export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
  html: string | null;
  senderId?: string;
}

/** A mail taken to be sent: `claim` is the lease it was taken under. */
export interface TakenMail {
  id: string;
  claim: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  attempts: number;
}

/** Queues the mail; answers its id. */
export async function insertOutboxMail(tx: Db, mail: OutboxMail): Promise<string> {
  const { outbox } = tablesOf(tx);
  const [row] = await tx.insert(outbox).values(mail).returning({ id: outbox.id });
  return row!.id;
}

const sentBySince = (db: Db, senderId: string, since: string) => {
  const { outbox } = tablesOf(db);
  return and(eq(outbox.senderId, senderId), gte(outbox.createdAt, since));
};

/** How many mails the user has sent since `since`. */
export async function mailsSentSince(tx: Db, senderId: string, since: string): Promise<number> {
  const { outbox } = tablesOf(tx);
  return (
    await tx
      .select({ n: count() })
      .from(outbox)
      .where(sentBySince(tx, senderId, since))
  )[0]!.n;
}

/** When the oldest mail the user has sent since `since` was queued. */
export async function oldestMailSentSince(tx: Db, senderId: string, since: string): Promise<string | undefined> {
  const { outbox } = tablesOf(tx);
  const [oldest] = await tx
    .select({ at: outbox.createdAt })
    .from(outbox)
    .where(sentBySince(tx, senderId, since))
    .orderBy(asc(outbox.createdAt))
    .limit(1);
  return oldest?.at;
}

/**
 * Takes the oldest mail due at `at` under the lease `claim`, counting the attempt; undefined when
 * none is due. Senders on several instances pass over each other's mail (SKIP LOCKED): each mail
 * is taken once.
 */
export async function takeDueMail(tx: Db, at: string, claim: string): Promise<TakenMail | undefined> {
  const { outbox } = tablesOf(tx);
  const [due] = await forUpdate(
    tx,
    tx
      .select({ id: outbox.id })
      .from(outbox)
      .where(
        and(
          isNull(outbox.sentAt),
          isNull(outbox.failedAt),
          or(isNull(outbox.nextAttemptAt), lte(outbox.nextAttemptAt, at)),
          or(isNull(outbox.claimedUntil), lte(outbox.claimedUntil, at)),
        ),
      )
      .orderBy(asc(outbox.createdAt))
      .limit(1),
    { skipLocked: true },
  );
  if (!due) return undefined;
  // `claimed_until` doubles as the claim: it is unique to one taking (an ISO instant plus a nonce
  // would do too), and a mark only applies while the row still holds this taking's value.
  const [mail] = await tx
    .update(outbox)
    .set({ claimedUntil: claim, attempts: sql`${outbox.attempts} + 1` })
    .where(eq(outbox.id, due.id))
    .returning({
      id: outbox.id,
      to: outbox.to,
      subject: outbox.subject,
      text: outbox.text,
      html: outbox.html,
      attempts: outbox.attempts,
    });
  return mail && { ...mail, claim };
}

/** Records the delivery while the row still holds this taking's claim. */
export async function markMailSent(tx: Db, mail: Pick<TakenMail, 'id' | 'claim'>, at: string): Promise<void> {
  const { outbox } = tablesOf(tx);
  await tx
    .update(outbox)
    .set({ sentAt: at, claimedUntil: null, lastError: null })
    .where(and(eq(outbox.id, mail.id), eq(outbox.claimedUntil, mail.claim)));
}

/** Records a refused delivery (a later attempt, or given up) while the row still holds this taking's claim. */
export async function markMailFailed(
  tx: Db,
  mail: Pick<TakenMail, 'id' | 'claim'>,
  outcome: { nextAttemptAt: string | null; failedAt: string | null; lastError: string },
): Promise<void> {
  const { outbox } = tablesOf(tx);
  await tx
    .update(outbox)
    .set({ ...outcome, claimedUntil: null })
    .where(and(eq(outbox.id, mail.id), eq(outbox.claimedUntil, mail.claim)));
}

/** Mails queued since `since` and not sent, oldest first. */
export async function unsentMailsSince(
  db: Db,
  since: string,
): Promise<{ id: string; createdAt: string; to: string; subject: string; text: string }[]> {
  const { outbox } = tablesOf(db);
  return db
    .select({ id: outbox.id, createdAt: outbox.createdAt, to: outbox.to, subject: outbox.subject, text: outbox.text })
    .from(outbox)
    .where(and(isNull(outbox.sentAt), gte(outbox.createdAt, since)))
    .orderBy(asc(outbox.createdAt), asc(outbox.id));
}

/** The time zones of the people who have an address (guests and deleted accounts have none). */
export async function timeZonesWithAddress(db: Db): Promise<string[]> {
  const { users } = tablesOf(db);
  const rows = await db
    .selectDistinct({ zone: users.timeZone })
    .from(users)
    .where(isNotNull(users.email))
    .orderBy(asc(users.timeZone));
  return rows.map((row) => row.zone);
}

/** Claims a zone's day (`"<date>|<zone>"`); false when another run (on any instance) claimed it first. */
export async function claimDigestDay(tx: Db, day: string, startedAt: string): Promise<boolean> {
  const { digestRuns } = tablesOf(tx);
  const claimed = await tx
    .insert(digestRuns)
    .values({ day, startedAt })
    .onConflictDoNothing()
    .returning({ day: digestRuns.day });
  return claimed.length > 0;
}

/**
 * When the last digest of the days before time zones (`"<date>"`, sent at 07:00 UTC to everyone)
 * started, or null: what it covered is not counted again.
 */
export async function lastUtcDigestAt(tx: Db): Promise<string | null> {
  const { digestRuns } = tablesOf(tx);
  const [row] = await tx
    .select({ at: sql<string | null>`max(${digestRuns.startedAt})` })
    .from(digestRuns)
    .where(notLike(digestRuns.day, '%|%'));
  return row?.at ?? null;
}

/** Running workshops with the daily mail on that have a member with an address in this time zone. */
export async function workshopsWithDailyMail(tx: Db, zone: string): Promise<{ id: string; title: string }[]> {
  const { users, workshopMembers, workshops } = tablesOf(tx);
  return tx
    .selectDistinct({ id: workshops.id, title: workshops.title })
    .from(workshops)
    .innerJoin(workshopMembers, eq(workshopMembers.workshopId, workshops.id))
    .innerJoin(users, eq(users.id, workshopMembers.userId))
    .where(
      and(
        eq(workshops.dailyMail, true),
        eq(workshops.state, 'running'),
        eq(users.timeZone, zone),
        isNotNull(users.email),
      ),
    )
    .orderBy(asc(workshops.id));
}

/** Whether the workshop's log holds any of `actions` in [since, until). */
export async function hasActivity(
  tx: Db,
  workshopId: string,
  actions: string[],
  window: { since: string; until: string },
): Promise<boolean> {
  const { events } = tablesOf(tx);
  const activity = await tx
    .select({ seq: events.seq })
    .from(events)
    .where(
      and(
        eq(events.workshopId, workshopId),
        gte(events.createdAt, window.since),
        lt(events.createdAt, window.until),
        inArray(events.action, actions),
      ),
    )
    .limit(1);
  return activity.length > 0;
}

/** The workshop's members who have an address (guests have none) and live in this time zone, by address. */
export async function membersWithAddress(
  tx: Db,
  workshopId: string,
  zone: string,
): Promise<{ id: string; email: string | null; name: string; locale: string }[]> {
  const { users, workshopMembers } = tablesOf(tx);
  return tx
    .select({ id: users.id, email: users.email, name: users.name, locale: users.locale })
    .from(workshopMembers)
    .innerJoin(users, eq(users.id, workshopMembers.userId))
    .where(and(eq(workshopMembers.workshopId, workshopId), eq(users.timeZone, zone), isNotNull(users.email)))
    .orderBy(asc(users.email));
}
