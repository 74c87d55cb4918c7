import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { dueDigest, queueDailyDigests, runDailyDigest } from '../src/modules/mail/digest';
import { useInstances, useServer, useUsers } from './helpers/cast';
import { seedCard, seedCurrentStep, seedWorkshopWith, type TestUser } from './helpers/factories';
import { serverCommand } from './helpers/processes';
import { testStore } from './helpers/store';
import { digestTime, sevenAmAfter } from './helpers/digest-time';

const t = useServer();
const [fay, pat, quinn] = useUsers(t, 'Fay', 'Pat', 'Quinn');

/** What a clock in `zone` reads at `at`, as `HH:MM`, by `Intl` alone. */
const clockIn = (zone: string, at = new Date()) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);

const outboxTo = (email: string) =>
  t.rows<{ subject: string; text: string }>(
    sql`SELECT subject, text FROM outbox WHERE "to" = ${email} AND subject LIKE 'What happened%' ORDER BY rowid`,
  );

describe('daily digest', () => {
  it('mails each member of a workshop with activity the last day its counts, once a day', async () => {
    const busy = await seedWorkshopWith(t, fay, [pat], { title: 'Busy' });
    const quiet = await seedWorkshopWith(t, fay, [pat], { title: 'Quiet' });
    const muted = await seedWorkshopWith(t, fay, [pat], { title: 'Muted', dailyMail: false });
    const cluster = (
      await t.request<{ id: string }>('POST', `/v1/workshops/${busy.id}/cards`, {
        token: pat.token,
        body: { type: 'cluster', title: 'Idea' },
      })
    ).body;
    await t.request('POST', `/v1/workshops/${busy.id}/cards/${cluster.id}/votes`, {
      token: pat.token,
      body: { value: 1 },
    });
    await t.request('POST', `/v1/workshops/${busy.id}/cards/${cluster.id}/votes`, {
      token: fay.token,
      body: { value: 1 },
    });
    await t.request('POST', `/v1/workshops/${busy.id}/cards/${cluster.id}/comments`, {
      token: fay.token,
      body: { content: 'Nice' },
    });
    const mutedCard = await seedCard(t, muted.id, fay, { type: 'cluster' });
    await t.request('POST', `/v1/workshops/${muted.id}/cards/${mutedCard.id}/votes`, {
      token: pat.token,
      body: { value: 1 },
    });
    expect(quiet.id).toBeTruthy();

    const now = digestTime();
    expect(await queueDailyDigests(t.deps, now)).toEqual({ ran: true, zones: ['UTC'], workshops: 1, mails: 2 });
    for (const member of [fay, pat]) {
      const mails = await outboxTo(member.email);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe('What happened in “Busy” yesterday');
      expect(mails[0]!.text).toContain('- 1 new card\n');
      expect(mails[0]!.text).toContain('- 2 votes');
      expect(mails[0]!.text).toContain('- 1 comment\n');
      expect(mails[0]!.text).toContain(`/workshops/${busy.id}`);
    }
    // The same day again (another instance, or a second run): nothing more.
    expect(await queueDailyDigests(t.deps, new Date(now.getTime() + 1_000))).toEqual({
      ran: false,
      zones: [],
      workshops: 0,
      mails: 0,
    });
    expect(await outboxTo(pat.email)).toHaveLength(1);
  });

  it('sends nothing for a day without activity', async () => {
    // Two days on, yesterday was quiet everywhere.
    expect(await queueDailyDigests(t.deps, digestTime('UTC', 2))).toEqual({
      ran: true,
      zones: ['UTC'],
      workshops: 0,
      mails: 0,
    });
  });
});

describe('the digest counts what its reader may see', () => {
  const post = async (user: TestUser, path: string, body: unknown) => {
    const res = await t.request<{ id: string }>('POST', path, { token: user.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  /** Runs the digest of the last day again (an earlier test may have sent this day's), and reads each one's mail about `title`. */
  const digestOf = async (title: string, readers: TestUser[]) => {
    const now = digestTime();
    await t.write(sql`DELETE FROM digest_runs WHERE day = ${`${now.toISOString().slice(0, 10)}|UTC`}`);
    await t.write(sql`DELETE FROM outbox WHERE subject LIKE ${`%“${title}”%`}`);
    expect(await queueDailyDigests(t.deps, now)).toMatchObject({ ran: true });
    const mails = new Map<string, string | undefined>();
    for (const reader of readers)
      mails.set(reader.name, (await outboxTo(reader.email)).find((mail) => mail.subject.includes(`“${title}”`))?.text);
    return mails;
  };
  const counts = (text: string | undefined) =>
    text && [...text.matchAll(/- (\d+) (new cards?|votes?|comments?)$/gm)].map((m) => `${m[1]} ${m[2]}`);

  it("leaves out other participants' cards, and the votes and comments on them, while a private step is current", async () => {
    const w = await seedWorkshopWith(t, fay, [pat, quinn], { title: 'Silent brainstorm' });
    await seedCurrentStep(t, w.id, { cards_visible: 'own', authors: 'hidden' });
    const base = `/v1/workshops/${w.id}`;
    const board = await post(fay, `${base}/cards`, { type: 'cluster', title: 'Board' });
    const patsIdea = await post(pat, `${base}/cards`, { type: 'idea', parent: board.id, title: 'Pat writes' });
    const quinnsIdea = await post(quinn, `${base}/cards`, { type: 'idea', parent: board.id, title: 'Quinn writes' });
    await post(quinn, `${base}/cards`, { type: 'idea', parent: board.id, title: 'Quinn writes more' });
    await post(quinn, `${base}/cards/${quinnsIdea.id}/votes`, { value: 1 });
    await post(quinn, `${base}/cards/${quinnsIdea.id}/comments`, { content: 'Quinn comments' });
    await post(pat, `${base}/cards/${patsIdea.id}/comments`, { content: 'Pat comments' });
    await post(fay, `${base}/cards/${board.id}/votes`, { value: 1 });

    const mails = await digestOf('Silent brainstorm', [fay, pat, quinn]);
    expect(counts(mails.get('Fay'))).toEqual(['4 new cards', '2 votes', '2 comments']);
    // Pat: the board and his idea, the vote on the board, his comment.
    expect(counts(mails.get('Pat'))).toEqual(['2 new cards', '1 vote', '1 comment']);
    expect(counts(mails.get('Quinn'))).toEqual(['3 new cards', '2 votes', '1 comment']);
    // Anonymous writing: no mail names anyone but its reader.
    expect(mails.get('Pat')).not.toContain('Quinn');

    // The reveal: once the private step is no longer current, every participant counts everything.
    expect((await t.request('PUT', base, { token: fay.token, body: { current_step_id: null } })).status).toBe(200);
    const after = await digestOf('Silent brainstorm', [pat]);
    expect(counts(after.get('Pat'))).toEqual(['4 new cards', '2 votes', '2 comments']);
  });

  it('sends no mail to a participant who may see none of the day', async () => {
    const w = await seedWorkshopWith(t, fay, [pat, quinn], { title: 'Only Quinn wrote' });
    await seedCurrentStep(t, w.id, { cards_visible: 'own' });
    await post(quinn, `/v1/workshops/${w.id}/cards`, { type: 'cluster', title: 'Alone' });

    const mails = await digestOf('Only Quinn wrote', [fay, pat, quinn]);
    expect(counts(mails.get('Fay'))).toEqual(['1 new card', '0 votes', '0 comments']);
    expect(counts(mails.get('Quinn'))).toEqual(['1 new card', '0 votes', '0 comments']);
    expect(mails.get('Pat')).toBeUndefined();
  });

  it("counts only a participant's own votes while the step hides others' votes", async () => {
    const w = await seedWorkshopWith(t, fay, [pat, quinn], { title: 'Secret ballot', votePositive: 10 });
    await seedCurrentStep(t, w.id, { allow_display_votes: false });
    const base = `/v1/workshops/${w.id}`;
    const board = await post(fay, `${base}/cards`, { type: 'cluster', title: 'Board' });
    const other = await post(fay, `${base}/cards`, { type: 'cluster', title: 'Other' });
    await post(pat, `${base}/cards/${board.id}/votes`, { value: 1 });
    await post(quinn, `${base}/cards/${board.id}/votes`, { value: 1 });
    await post(quinn, `${base}/cards/${other.id}/votes`, { value: 1 });

    const mails = await digestOf('Secret ballot', [fay, pat, quinn]);
    expect(counts(mails.get('Fay'))).toEqual(['2 new cards', '3 votes', '0 comments']);
    expect(counts(mails.get('Pat'))).toEqual(['2 new cards', '1 vote', '0 comments']);
    expect(counts(mails.get('Quinn'))).toEqual(['2 new cards', '2 votes', '0 comments']);
  });
});

describe('the digest on several instances', () => {
  // SQLite has one writer at a time: a second instance waits for the whole transaction, not for the claim.
  it.runIf(testStore === 'postgres')(
    'an instance finding the day claimed by another, still queueing it, sends nothing and raises nothing',
    async () => {
      // Another instance has claimed the day and is still queueing its mails (not committed yet).
      const other = new pg.Client({ connectionString: t.deps.config.databaseUrl });
      await other.connect();
      const now = digestTime('UTC', 5);
      await other.query('BEGIN');
      await other.query('INSERT INTO digest_runs (day, started_at) VALUES ($1, $2)', [
        `${now.toISOString().slice(0, 10)}|UTC`,
        now.toISOString(),
      ]);
      try {
        expect(await queueDailyDigests(t.deps, now)).toEqual({
          ran: false,
          zones: [],
          workshops: 0,
          mails: 0,
          claimInFlight: true,
        });
      } finally {
        await other.query('ROLLBACK');
        await other.end();
      }
    },
  );

  it.runIf(testStore === 'postgres')(
    'a day whose claimer rolls back is sent by the instance that looks again',
    async () => {
      const busy = await seedWorkshopWith(t, fay, [pat], { title: 'Rolled back' });
      const card = await seedCard(t, busy.id, pat, { type: 'cluster' });
      await t.request('POST', `/v1/workshops/${busy.id}/cards/${card.id}/votes`, {
        token: pat.token,
        body: { value: 1 },
      });
      const other = new pg.Client({ connectionString: t.deps.config.databaseUrl });
      await other.connect();
      // The day up to the next 07:00 counts: a run just after it, on a day an earlier test may have sent.
      const now = digestTime();
      const claim = `${now.toISOString().slice(0, 10)}|UTC`;
      await t.rows(sql`DELETE FROM digest_runs WHERE day = ${claim} RETURNING day`);
      await other.query('BEGIN');
      await other.query('INSERT INTO digest_runs (day, started_at) VALUES ($1, $2)', [claim, now.toISOString()]);
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
    },
  );
});

describe('the digest at 07:00 in each person’s time zone', () => {
  const [a, b] = useInstances(2);
  const minutes = (n: number) => n * 60_000;

  it('finds each zone’s day once its clocks passed 07:00, covering the day up to that 07:00', () => {
    // Kathmandu is 5 h 45 min ahead: its 07:00 is at 01:15 UTC, between two whole hours.
    expect(dueDigest('Asia/Kathmandu', new Date('2026-11-22T01:14:00Z'))).toBeUndefined();
    expect(dueDigest('Asia/Kathmandu', new Date('2026-11-22T01:16:00Z'))).toEqual({
      zone: 'Asia/Kathmandu',
      claim: '2026-11-22|Asia/Kathmandu',
      since: '2026-11-21T01:15:00.000Z',
      until: '2026-11-22T01:15:00.000Z',
    });
    // The day New York's clocks go forward has 23 hours; the day they go back, 25.
    expect(dueDigest('America/New_York', new Date('2026-03-08T12:00:00Z'))).toMatchObject({
      since: '2026-03-07T12:00:00.000Z',
      until: '2026-03-08T11:00:00.000Z',
    });
    expect(dueDigest('America/New_York', new Date('2026-11-01T13:00:00Z'))).toMatchObject({
      since: '2026-10-31T11:00:00.000Z',
      until: '2026-11-01T12:00:00.000Z',
    });
    // Tokyo's date changes at 15:00 UTC: late in the UTC day it is already the next one there.
    expect(dueDigest('Asia/Tokyo', new Date('2026-11-22T23:00:00Z'))?.claim).toBe('2026-11-23|Asia/Tokyo');
    expect(dueDigest('UTC', new Date('2026-11-22T06:59:59Z'))).toBeUndefined();
  });

  it('mails a person in Tokyo and one in New York at their own 07:00, once each, across ticks and instances', async () => {
    const signUp = async (name: string, timeZone: string) => {
      const res = await a.request<{ token: string; user: { id: string; time_zone: string } }>(
        'POST',
        '/v1/auth/signup',
        {
          body: {
            email: `${name.toLowerCase()}@example.test`,
            password: 'correct horse battery',
            name,
            time_zone: timeZone,
          },
        },
      );
      expect(res.body.user.time_zone).toBe(timeZone);
      return { token: res.body.token, id: res.body.user.id, email: `${name.toLowerCase()}@example.test`, name };
    };
    const kenji = await signUp('Kenji', 'Asia/Tokyo');
    const nora = await signUp('Nora', 'America/New_York');
    const w = await seedWorkshopWith(a, kenji, [nora], { title: 'Across the world' });
    const card = await a.request<{ id: string }>('POST', `/v1/workshops/${w.id}/cards`, {
      token: nora.token,
      body: { type: 'cluster', title: 'Good morning' },
    });
    await a.request('POST', `/v1/workshops/${w.id}/cards/${card.body.id}/votes`, {
      token: kenji.token,
      body: { value: 1 },
    });

    const tokyoAt = sevenAmAfter('Asia/Tokyo');
    const newYorkAt = sevenAmAfter('America/New_York');
    expect(clockIn('Asia/Tokyo', tokyoAt)).toBe('07:00');
    expect(clockIn('America/New_York', newYorkAt)).toBe('07:00');
    const [first, second] = [
      { at: tokyoAt, person: kenji, zone: 'Asia/Tokyo' },
      { at: newYorkAt, person: nora, zone: 'America/New_York' },
    ].sort((x, y) => x.at.getTime() - y.at.getTime());
    const mailsTo = async (person: { email: string }) =>
      (
        await a.rows<{ text: string }>(
          sql`SELECT text FROM outbox WHERE "to" = ${person.email} AND subject = 'What happened in “Across the world” yesterday'`,
        )
      ).map((mail) => mail.text);
    const tick = (instance: typeof a, at: Date) => queueDailyDigests(instance.deps, at);

    // A quarter of an hour before the first 07:00: nobody yet.
    await tick(a, new Date(first!.at.getTime() - minutes(15)));
    expect(await mailsTo(kenji)).toEqual([]);
    expect(await mailsTo(nora)).toEqual([]);

    // Just after it, both instances look at once: one of them sends it.
    const both = await Promise.all(
      [a, b].map((instance) => tick(instance, new Date(first!.at.getTime() + minutes(1)))),
    );
    expect(both.filter((report) => report.zones.includes(first!.zone))).toHaveLength(1);
    const firstMails = await mailsTo(first!.person);
    expect(firstMails).toHaveLength(1);
    expect(firstMails[0]).toContain('- 1 new card\n');
    expect(firstMails[0]).toContain('- 1 vote\n');
    expect(await mailsTo(second!.person)).toEqual([]);

    // The next ticks, on either instance: the first zone's day is sent; the second's comes at its 07:00.
    await tick(b, new Date(first!.at.getTime() + minutes(16)));
    await tick(a, new Date(second!.at.getTime() - minutes(15)));
    expect(await mailsTo(second!.person)).toEqual([]);
    await tick(b, new Date(second!.at.getTime() + minutes(1)));
    await tick(a, new Date(second!.at.getTime() + minutes(16)));
    expect(await mailsTo(first!.person)).toHaveLength(1);
    const secondMails = await mailsTo(second!.person);
    expect(secondMails).toHaveLength(1);
    expect(secondMails[0]).toContain('- 1 new card\n');
  });
});

describe('npm run digest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-digest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('queues the digests due now by hand, once a day per time zone', async () => {
    const path = join(dir, 'w.db');
    const run = async () =>
      (
        await promisify(execFile)(serverCommand('digest')[0], serverCommand('digest').slice(1), {
          env: { ...process.env, DATABASE_PATH: path },
        })
      ).stdout.trim();
    const nothing = 'no digest is due now (each time zone gets one a day, once 07:00 passed there); nothing to do';
    expect(await run()).toBe(nothing);
    // A person somewhere it is past 07:00 and not yet late in the day (some zone always is).
    const zone = ['Pacific/Kiritimati', 'Asia/Tokyo', 'Europe/Paris', 'America/New_York', 'Pacific/Honolulu'].find(
      (candidate) => {
        const hour = Number(clockIn(candidate).slice(0, 2));
        return hour >= 8 && hour <= 22;
      },
    )!;
    const db = new Database(path);
    db.prepare(
      "INSERT INTO users (id, email, name, time_zone, created_at, updated_at) VALUES ('u1', 'zed@example.test', 'Zed', ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
    ).run(zone);
    db.close();
    expect(await run()).toBe('queued 0 digest mails for 0 workshops in 1 time zone');
    expect(await run()).toBe(nothing);
  });
});
