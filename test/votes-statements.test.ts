import { describe, expect, it } from 'vitest';
import type { VoteOutput } from '../src/domain/votes';
import { useCast } from './helpers/cast';
import { seedCardScene } from './helpers/factories';
import { recordStatements, transactionsIn } from './helpers/statements';
import { testStore } from './helpers/store';

/*
 * Voting is the busiest write and is benchmarked: the statements each kind of vote costs in its
 * transaction are counted here, so that one more does not slip in unseen. PostgreSQL locks the
 * workshop's row first (one statement); SQLite's single writer needs no lock.
 */

const cast = useCast();
const { t, participant } = cast;
const lock = testStore === 'postgres' ? 1 : 0;

/** The answer to a request that makes one write transaction, and that transaction's statements. */
async function transactionOf(
  request: () => Promise<{ status: number }>,
): Promise<{ status: number; statements: string[] }> {
  const recording = recordStatements();
  let status: number;
  let transactions: string[][];
  try {
    status = (await request()).status;
  } finally {
    // The participation announcement a vote sets off takes its once-a-second slot in a transaction
    // of its own (`rate_limits`, on a database without Redis): not the vote's.
    transactions = transactionsIn(recording.stop()).filter(
      (statements) => !statements.every((statement) => statement.includes('"rate_limits"')),
    );
  }
  expect(transactions, JSON.stringify(transactions, null, 1)).toHaveLength(1);
  return { status, statements: transactions[0]! };
}

const vote = (path: string, value: number) =>
  t.request<VoteOutput>('POST', path, { token: participant.token, body: { value } });

describe('the statements of a vote', () => {
  it('an accepted vote: access (2), card, spending, insert, numbering, event', async () => {
    const { path } = await seedCardScene(cast, 'votes', { voteMaxPositive: 2 });
    // A voter's first vote, with no spending yet, and the next one read alike.
    for (const accepted of [await transactionOf(() => vote(path, 1)), await transactionOf(() => vote(path, 1))]) {
      expect(accepted.status).toBe(201);
      expect(accepted.statements, accepted.statements.join('\n')).toHaveLength(lock + 7);
    }
  });

  it('a refused vote: the reads only, nothing numbered', async () => {
    const { path } = await seedCardScene(cast, 'votes', { voteMaxPositive: 1 });
    expect((await vote(path, 1)).status).toBe(201);
    const refused = await transactionOf(() => vote(path, 1));
    expect(refused.status).toBe(409);
    expect(refused.statements, refused.statements.join('\n')).toHaveLength(lock + 4);
  });

  it('a changed vote: access, card, vote, spending, update, numbering, event', async () => {
    const { path } = await seedCardScene(cast, 'votes', { voteMaxPositive: 3 });
    const { body } = await vote(path, 1);
    const changed = await transactionOf(() =>
      t.request('PUT', `${path}/${body.id}`, { token: participant.token, body: { value: 2 } }),
    );
    expect(changed.status).toBe(200);
    expect(changed.statements, changed.statements.join('\n')).toHaveLength(lock + 7);
  });
});
