/**
 * The two PostgreSQL drivers for Node, side by side on the vote path, in one run: `pg`
 * (node-postgres, which the service uses through Drizzle) and `postgres` (postgres.js). Each runs
 * the statements of one vote as the service's schema has them (lock the workshop row, read the
 * voter's access, their spending, insert the vote, number and insert its event) in one
 * transaction, first one transaction at a time, then from 50 concurrent callers into one workshop
 * (contending for its lock), on a throwaway cluster with PostgreSQL's default, durable settings.
 * Prints transactions per second and p99 for each, and the ratio of postgres.js to node-postgres.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import postgres from 'postgres';
import { startPostgresCluster } from '../scripts/postgres-cluster';
import { openPostgres } from '../src/db/postgres';

const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 3_000);
const id = () => randomBytes(16).toString('base64url');

const cluster = await startPostgresCluster(['max_connections=200']);
try {
  const admin = new pg.Client({ connectionString: `${cluster.baseUrl}postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE drivers');
  await admin.end();
  const url = `${cluster.baseUrl}drivers`;
  await (await openPostgres(url, { checked: false, poolSize: 1 })).close();

  // One workshop, 50 voters, 100 cards.
  const seed = new pg.Client({ connectionString: url });
  await seed.connect();
  const workshopId = id();
  const users = Array.from({ length: 50 }, id);
  const cards = Array.from({ length: 100 }, id);
  const now = new Date().toISOString();
  for (const user of users)
    await seed.query(
      'INSERT INTO users (id, email, name, password_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)',
      [user, `${user}@x`, 'Voter', 'x', now],
    );
  await seed.query(
    `INSERT INTO workshops (id, owner_type, owner_id, created_by, title, view, access_code, created_at, updated_at) VALUES ($1, 'user', $2, $2, 'Bench', '{}', '123456789', $3, $3)`,
    [workshopId, users[0], now],
  );
  for (const user of users)
    await seed.query(
      `INSERT INTO workshop_members (id, workshop_id, user_id, role, created_at) VALUES ($1, $2, $3, 'participant', $4)`,
      [id(), workshopId, user, now],
    );
  for (const [n, card] of cards.entries()) {
    await seed.query(
      `INSERT INTO cards (id, workshop_id, number, type, title, position, user_id, created_at, updated_at) VALUES ($1, $2, $3, 'cluster', 'Card', $3, $4, $5, $5)`,
      [card, workshopId, n, users[0], now],
    );
  }
  await seed.end();

  const statements = {
    lock: 'SELECT id FROM workshops WHERE id = $1 FOR UPDATE',
    access:
      'SELECT w.vote_positive, m.role FROM workshops w LEFT JOIN workshop_members m ON m.workshop_id = w.id AND m.user_id = $2 WHERE w.id = $1',
    spending: 'SELECT positive, negative FROM vote_totals WHERE workshop_id = $1 AND user_id = $2',
    insert: `INSERT INTO votes (id, workshop_id, card_id, user_id, value, created_at, updated_at) VALUES ($1, $2, $3, $4, 1, $5, $5)`,
    number: 'UPDATE workshops SET last_event_seq = last_event_seq + 1 WHERE id = $1 RETURNING last_event_seq',
    event: `INSERT INTO events (id, workshop_id, seq, action, user_id, change, created_at) VALUES ($1, $2, $3, 'addVote', $4, $5, $6)`,
  };
  const vote = () => {
    const user = users[Math.floor(Math.random() * users.length)]!;
    const card = cards[Math.floor(Math.random() * cards.length)]!;
    return { voteId: id(), user, card, at: new Date().toISOString() };
  };

  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const nodePostgres = async () => {
    const { voteId, user, card, at } = vote();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query({ name: 'lock', text: statements.lock, values: [workshopId] });
      await client.query({ name: 'access', text: statements.access, values: [workshopId, user] });
      await client.query({ name: 'spending', text: statements.spending, values: [workshopId, user] });
      await client.query({ name: 'insert', text: statements.insert, values: [voteId, workshopId, card, user, at] });
      const { rows } = await client.query({ name: 'number', text: statements.number, values: [workshopId] });
      await client.query({
        name: 'event',
        text: statements.event,
        values: [id(), workshopId, rows[0].last_event_seq, user, JSON.stringify({ vote: { id: voteId } }), at],
      });
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };

  const sql = postgres(url, { max: 10, onnotice: () => {} });
  const postgresJs = async () => {
    const { voteId, user, card, at } = vote();
    await sql.begin(async (tx) => {
      await tx.unsafe(statements.lock, [workshopId], { prepare: true });
      await tx.unsafe(statements.access, [workshopId, user], { prepare: true });
      await tx.unsafe(statements.spending, [workshopId, user], { prepare: true });
      await tx.unsafe(statements.insert, [voteId, workshopId, card, user, at], { prepare: true });
      const [row] = await tx.unsafe(statements.number, [workshopId], { prepare: true });
      await tx.unsafe(
        statements.event,
        [id(), workshopId, row!.last_event_seq, user, JSON.stringify({ vote: { id: voteId } }), at],
        { prepare: true },
      );
    });
  };

  async function measure(one: () => Promise<void>, concurrency: number): Promise<{ perSecond: number; p99: number }> {
    const latencies: number[] = [];
    let started = 0;
    const begin = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (started++ < TRANSACTIONS) {
          const t = performance.now();
          await one();
          latencies.push(performance.now() - t);
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    return {
      perSecond: TRANSACTIONS / ((performance.now() - begin) / 1000),
      p99: latencies[Math.floor(latencies.length * 0.99)]!,
    };
  }

  // A warm-up round each, then the measured one.
  for (const one of [nodePostgres, postgresJs]) await measure(one, 10);
  console.log(`${TRANSACTIONS} vote transactions per run (7 statements each)`);
  console.log('callers   pg (node-postgres)         postgres (postgres.js)     postgres.js / pg');
  for (const concurrency of [1, 50]) {
    const a = await measure(nodePostgres, concurrency);
    const b = await measure(postgresJs, concurrency);
    console.log(
      `${String(concurrency).padStart(7)}   ${a.perSecond.toFixed(0).padStart(6)}/s p99 ${a.p99.toFixed(1).padStart(5)} ms   ${b.perSecond.toFixed(0).padStart(6)}/s p99 ${b.p99.toFixed(1).padStart(5)} ms   ${(b.perSecond / a.perSecond).toFixed(2)}`,
    );
  }
  await pool.end();
  await sql.end();
} finally {
  cluster.stop();
}
