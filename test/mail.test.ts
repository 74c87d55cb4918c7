import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logQueuedMail } from '../src/modules/mail/dev-log';
import { queueMail } from '../src/modules/mail/outbox';
import { holdWriteLock } from './helpers/locks';
import { startTestServer, type TestServer } from './helpers/server';
import { startSmtp } from './helpers/smtp';
import { testStore } from './helpers/store';
import { quietFor, until } from './helpers/wait';

/*
 * Mail leaves through a real SMTP server running in the test process.
 *
 * Among the slowest files (about 15 s on each store): the sender's own pace is tested. A refusing
 * SMTP server is tried again on the retry schedule until it accepts, a lock is held for 2.5 s while
 * a mail is sent, and thirty signups on two instances sharing one outbox are each sent once.
 */

const signup = (t: TestServer, email: string) =>
  t.request('POST', '/v1/auth/signup', { body: { email, password: 'long enough', name: 'Mailed' } });

const outboxOf = async (t: TestServer, to: string) =>
  (
    await t.rows<{
      sent_at: string | null;
      attempts: number;
      last_error: string | null;
      failed_at: string | null;
    }>(sql`SELECT sent_at, attempts, last_error, failed_at FROM outbox WHERE "to" = ${to}`)
  )[0]!;

describe('mail over SMTP', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let t: TestServer;
  beforeAll(async () => {
    smtp = await startSmtp();
    t = await startTestServer({ smtpUrl: smtp.url, mailFrom: 'Workshops <workshops@example.test>' });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('sends the confirmation mail, marks it sent, and says so on /health', async () => {
    expect((await t.request('GET', '/health')).body).toEqual({ status: 'ok', mail: 'smtp' });
    expect((await signup(t, 'first@example.test')).status).toBe(201);
    await until(() => smtp.received.some((m) => m.to.includes('first@example.test')), 'the mail at the SMTP server');
    const mail = smtp.received.find((m) => m.to.includes('first@example.test'))!;
    expect(mail.from).toBe('workshops@example.test');
    expect(mail.data).toContain('Subject: Confirm your e-mail address');
    expect(mail.data).toMatch(/\/confirm\?token=/);
    await until(async () => (await outboxOf(t, 'first@example.test')).sent_at !== null, 'the mail marked sent');
    expect(await outboxOf(t, 'first@example.test')).toMatchObject({ attempts: 1, last_error: null });
  });
});

describe('a refusing SMTP server', () => {
  it('is tried again with backoff until it accepts, and the mail arrives once', async () => {
    const smtp = await startSmtp({ refuse: 2 });
    const t = await startTestServer({ smtpUrl: smtp.url, mailRetryBaseMs: 50 });
    try {
      expect((await signup(t, 'patient@example.test')).status).toBe(201);
      await until(
        async () => (await outboxOf(t, 'patient@example.test')).sent_at !== null,
        'the mail sent after two refusals',
        10_000,
      );
      expect((await outboxOf(t, 'patient@example.test')).attempts).toBe(3);
      expect(smtp.received.filter((m) => m.to.includes('patient@example.test'))).toHaveLength(1);
    } finally {
      await t.close();
      await smtp.close();
    }
  });
});

describe('a database busy when the mail was accepted', () => {
  it('records the delivery once the lock is free, without sending the mail again', async () => {
    let t: TestServer | undefined;
    const smtp = await startSmtp({
      // Another writer holds what recording the delivery needs for longer than a write waits, from
      // just before the server accepts the mail.
      async onAccept() {
        const held = await holdWriteLock(t!, { table: 'outbox', column: 'to', value: 'locked@example.test' });
        setTimeout(() => void held.release(), 2_500);
      },
    });
    t = await startTestServer({ smtpUrl: smtp.url });
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    try {
      expect((await signup(t, 'locked@example.test')).status).toBe(201);
      await until(
        async () => (await outboxOf(t!, 'locked@example.test')).sent_at !== null,
        'the delivery recorded',
        15_000,
      );
      expect(smtp.received.filter((m) => m.to.includes('locked@example.test'))).toHaveLength(1);
      expect(await outboxOf(t, 'locked@example.test')).toMatchObject({ attempts: 1, last_error: null });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await t.close();
      await smtp.close();
    }
  });
});

describe('two instances on one database', () => {
  it('send each mail once', async () => {
    const smtp = await startSmtp();
    const a = await startTestServer({ smtpUrl: smtp.url });
    const b = await startTestServer({ smtpUrl: smtp.url }, { shareDatabaseOf: a });
    try {
      const addresses = Array.from({ length: 30 }, (_, n) => `twice-${n}@example.test`);
      for (const [n, address] of addresses.entries()) expect((await signup(n % 2 ? a : b, address)).status).toBe(201);
      await until(
        async () => {
          const rows = await Promise.all(addresses.map((address) => outboxOf(a, address)));
          return rows.every((row) => row.sent_at !== null);
        },
        'every mail sent',
        15_000,
      );
      const delivered = smtp.received.flatMap((m) => m.to).filter((to) => to.startsWith('twice-'));
      expect(delivered.sort()).toEqual([...addresses].sort());
    } finally {
      await b.close();
      await a.close();
      await smtp.close();
    }
  });
});

describe('without SMTP, the mail printed to the log in development', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });
  const queue = (to: string) =>
    t.write((tx) => queueMail(tx, { to, subject: `Hello ${to}`, text: `Open https://example.test/${to}` }));

  it('prints each mail queued from then on, once, with its links', async () => {
    await queue('before@example.test');
    await quietFor(5, 'the log starting a moment after that mail');
    const lines: string[] = [];
    const stop = logQueuedMail(t.deps.database, (line) => lines.push(line));
    try {
      await queue('after@example.test');
      await until(() => lines.length > 0, 'the new mail printed');
      await quietFor(1_500, 'another look at the outbox');
      expect(lines).toEqual([
        '[mail] to after@example.test: Hello after@example.test — https://example.test/after@example.test',
      ]);
    } finally {
      stop();
    }
  });

  // Only PostgreSQL commits two writers' transactions side by side, in another order than they queued.
  it.runIf(testStore === 'postgres')('prints a mail whose transaction commits after a mail queued later', async () => {
    const lines: string[] = [];
    const stop = logQueuedMail(t.deps.database, (line) => lines.push(line));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let queued = false;
    try {
      const slow = t.deps.database.transaction(async (tx) => {
        await queueMail(tx, { to: 'slow@example.test', subject: 'Slow', text: 'queued first' });
        queued = true;
        await held;
      });
      await until(() => queued, 'the first mail queued, not committed');
      await queue('fast@example.test');
      await until(() => lines.some((line) => line.includes('fast@example.test')), 'the mail committed first printed');
      release();
      await slow;
      await until(() => lines.some((line) => line.includes('slow@example.test')), 'the mail committed last printed');
      expect(lines.filter((line) => line.includes('slow@example.test'))).toHaveLength(1);
    } finally {
      release();
      stop();
    }
  });
});
