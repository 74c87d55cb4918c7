import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { queueDailyDigests, runDailyDigest } from '../src/modules/mail/digest';
import { useServer, useUsers } from './helpers/cast';
import { seedCard, seedWorkshopWith } from './helpers/factories';
import { testStore } from './helpers/store';

const t = useServer();
const [fay, pat] = useUsers(t, 'Fay', 'Pat');

const outboxTo = (email: string) =>
  t.rows<{ subject: string; text: string }>(sql`SELECT subject, text FROM outbox WHERE "to" = ${email} AND subject LIKE 'What happened%' ORDER BY rowid`);

describe('daily digest', () => {
  it('mails each member of a workshop with activity the last day its counts, once a day', async () => {
    const busy = await seedWorkshopWith(t, fay, [pat], { title: 'Busy' });
    const quiet = await seedWorkshopWith(t, fay, [pat], { title: 'Quiet' });
    const muted = await seedWorkshopWith(t, fay, [pat], { title: 'Muted', dailyMail: false });
    const cluster = (await t.request<{ id: string }>('POST', `/v1/workshops/${busy.id}/cards`, { token: pat.token, body: { type: 'cluster', title: 'Idea' } })).body;
    await t.request('POST', `/v1/workshops/${busy.id}/cards/${cluster.id}/votes`, { token: pat.token, body: { value: 1 } });
    await t.request('POST', `/v1/workshops/${busy.id}/cards/${cluster.id}/votes`, { token: fay.token, body: { value: 1 } });
    await t.request('POST', `/v1/workshops/${busy.id}/cards/${cluster.id}/comments`, { token: fay.token, body: { content: 'Nice' } });
    const mutedCard = await seedCard(t, muted.id, fay, { type: 'cluster' });
    await t.request('POST', `/v1/workshops/${muted.id}/cards/${mutedCard.id}/votes`, { token: pat.token, body: { value: 1 } });
    expect(quiet.id).toBeTruthy();

    const now = new Date(Date.now() + 60_000);
    expect(await queueDailyDigests(t.deps, now)).toEqual({ ran: true, workshops: 1, mails: 2 });
    for (const member of [fay, pat]) {
      const mails = await outboxTo(member.email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe('What happened in "Busy" yesterday');
      expect(mails[0]!.text).toContain('- 1 new cards');
      expect(mails[0]!.text).toContain('- 2 votes');
      expect(mails[0]!.text).toContain('- 1 comments');
      expect(mails[0]!.text).toContain(`/workshops/${busy.id}`);
    }
    // The same day again (another instance, or a second run): nothing more.
    expect(await queueDailyDigests(t.deps, new Date(now.getTime() + 1_000))).toEqual({ ran: false, workshops: 0, mails: 0 });
    expect(await outboxTo(pat.email)).toHaveLength(1);
  });

  it('sends nothing for a day without activity', async () => {
    // Two days on, yesterday was quiet everywhere.
    expect(await queueDailyDigests(t.deps, new Date(Date.now() + 2 * 24 * 3600 * 1000 + 60_000))).toEqual({ ran: true, workshops: 0, mails: 0 });
  });
});

describe('the digest on several instances', () => {
  // SQLite has one writer at a time: a second instance waits for the whole transaction, not for the claim.
  it.runIf(testStore === 'postgres')('an instance finding the day claimed by another, still queueing it, sends nothing and raises nothing', async () => {
    // Another instance has claimed the day and is still queueing its mails (not committed yet).
    const other = new pg.Client({ connectionString: t.deps.config.databaseUrl });
    await other.connect();
    const now = new Date(Date.now() + 5 * 24 * 3600 * 1000);
    await other.query('BEGIN');
    await other.query('INSERT INTO digest_runs (day, started_at) VALUES ($1, $2)', [now.toISOString().slice(0, 10), now.toISOString()]);
    try {
      expect(await queueDailyDigests(t.deps, now)).toEqual({ ran: false, workshops: 0, mails: 0, claimInFlight: true });
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
  });

  it.runIf(testStore === 'postgres')('a day whose claimer rolls back is sent by the instance that looks again', async () => {
    const busy = await seedWorkshopWith(t, fay, [pat], { title: 'Rolled back' });
    const card = await seedCard(t, busy.id, pat, { type: 'cluster' });
    await t.request('POST', `/v1/workshops/${busy.id}/cards/${card.id}/votes`, { token: pat.token, body: { value: 1 } });
    const other = new pg.Client({ connectionString: t.deps.config.databaseUrl });
    await other.connect();
    // The last 24 hours' activity counts: a run a minute from now, on a day an earlier test may have sent.
    const now = new Date(Date.now() + 60_000);
    await t.rows(sql`DELETE FROM digest_runs WHERE day = ${now.toISOString().slice(0, 10)} RETURNING day`);
    await other.query('BEGIN');
    await other.query('INSERT INTO digest_runs (day, started_at) VALUES ($1, $2)', [now.toISOString().slice(0, 10), now.toISOString()]);
    const outcome = runDailyDigest(t.deps, now, { afterMs: 300, tries: 5 });
    try {
      // The other instance fails after this one found its claim in flight, and rolls back.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
    expect(await outcome).toMatchObject({ ran: true });
    expect((await outboxTo(pat.email)).filter((mail) => mail.subject.includes('Rolled back'))).toHaveLength(1);
  });
});

describe('npm run digest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-digest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('queues the digest by hand, once a day', async () => {
    const run = () =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/digest.ts'], { env: { ...process.env, DATABASE_PATH: join(dir, 'w.db') } });
    expect((await run()).stdout.trim()).toBe('queued 0 digest mails for 0 workshops');
    expect((await run()).stdout.trim()).toBe("today's digest was already queued; nothing to do");
  });
});
