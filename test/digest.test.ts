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
import { seedCard, seedCurrentStep, seedWorkshopWith, type TestUser } from './helpers/factories';
import { testStore } from './helpers/store';

const t = useServer();
const [fay, pat, quinn] = useUsers(t, 'Fay', 'Pat', 'Quinn');

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
    expect(await queueDailyDigests(t.deps, new Date(now.getTime() + 1_000))).toEqual({
      ran: false,
      workshops: 0,
      mails: 0,
    });
    expect(await outboxTo(pat.email)).toHaveLength(1);
  });

  it('sends nothing for a day without activity', async () => {
    // Two days on, yesterday was quiet everywhere.
    expect(await queueDailyDigests(t.deps, new Date(Date.now() + 2 * 24 * 3600 * 1000 + 60_000))).toEqual({
      ran: true,
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
    const now = new Date(Date.now() + 60_000);
    await t.write(sql`DELETE FROM digest_runs WHERE day = ${now.toISOString().slice(0, 10)}`);
    await t.write(sql`DELETE FROM outbox WHERE subject LIKE ${`%"${title}"%`}`);
    expect(await queueDailyDigests(t.deps, now)).toMatchObject({ ran: true });
    const mails = new Map<string, string | undefined>();
    for (const reader of readers)
      mails.set(reader.name, (await outboxTo(reader.email)).find((mail) => mail.subject.includes(`"${title}"`))?.text);
    return mails;
  };
  const counts = (text: string | undefined) =>
    text && [...text.matchAll(/- (\d+) (new cards|votes|comments)/g)].map((m) => `${m[1]} ${m[2]}`);

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
    expect(counts(mails.get('Pat'))).toEqual(['2 new cards', '1 votes', '1 comments']);
    expect(counts(mails.get('Quinn'))).toEqual(['3 new cards', '2 votes', '1 comments']);
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
    expect(counts(mails.get('Fay'))).toEqual(['1 new cards', '0 votes', '0 comments']);
    expect(counts(mails.get('Quinn'))).toEqual(['1 new cards', '0 votes', '0 comments']);
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
    expect(counts(mails.get('Pat'))).toEqual(['2 new cards', '1 votes', '0 comments']);
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
      const now = new Date(Date.now() + 5 * 24 * 3600 * 1000);
      await other.query('BEGIN');
      await other.query('INSERT INTO digest_runs (day, started_at) VALUES ($1, $2)', [
        now.toISOString().slice(0, 10),
        now.toISOString(),
      ]);
      try {
        expect(await queueDailyDigests(t.deps, now)).toEqual({
          ran: false,
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
      // The last 24 hours' activity counts: a run a minute from now, on a day an earlier test may have sent.
      const now = new Date(Date.now() + 60_000);
      await t.rows(sql`DELETE FROM digest_runs WHERE day = ${now.toISOString().slice(0, 10)} RETURNING day`);
      await other.query('BEGIN');
      await other.query('INSERT INTO digest_runs (day, started_at) VALUES ($1, $2)', [
        now.toISOString().slice(0, 10),
        now.toISOString(),
      ]);
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

describe('npm run digest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-digest-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('queues the digest by hand, once a day', async () => {
    const run = () =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/digest.ts'], {
        env: { ...process.env, DATABASE_PATH: join(dir, 'w.db') },
      });
    expect((await run()).stdout.trim()).toBe('queued 0 digest mails for 0 workshops');
    expect((await run()).stdout.trim()).toBe("today's digest was already queued; nothing to do");
  });
});
