import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { CardOutput } from '../src/domain/cards';
import type { VoteOutput } from '../src/domain/votes';
import { useServer, useUsers } from './helpers/cast';
import { seedCard, seedWorkshopWith, inTurn } from './helpers/factories';

/*
 * Budgets and scores read `vote_tallies`, which triggers keep from `votes`. Whatever path changes
 * votes (cast, change, withdraw, merge, card and bulk deletes), the tallies must equal the sums.
 */

const t = useServer();
const [fay, pat, otto] = useUsers(t, 'Fay', 'Pat', 'Otto');

interface Tally {
  card_id: string;
  user_id: string;
  workshop_id: string;
  positive: number | string;
  negative: number | string;
}

const numbered = (rows: Tally[]) =>
  rows.map((row) => ({ ...row, positive: Number(row.positive), negative: Number(row.negative) }));

async function talliesMatchVotes() {
  const tallies = await t.rows<Tally>(
    sql`SELECT card_id, user_id, workshop_id, positive, negative FROM vote_tallies ORDER BY card_id, user_id`,
  );
  const sums = await t.rows<Tally>(
    sql`SELECT card_id, user_id, workshop_id,
               sum(CASE WHEN value > 0 THEN value ELSE 0 END) AS positive, sum(CASE WHEN value < 0 THEN -value ELSE 0 END) AS negative
          FROM votes GROUP BY card_id, user_id, workshop_id ORDER BY card_id, user_id`,
  );
  expect(numbered(tallies)).toEqual(numbered(sums));
}

describe('vote tallies', () => {
  it('follow every way votes change', async () => {
    const w = await seedWorkshopWith(t, fay, [pat, otto], {
      votePositive: -1,
      voteNegative: -1,
      voteMaxPositive: 100,
      voteMaxNegative: 100,
    });
    const cards = await inTurn(3, (n) => seedCard(t, w.id, fay, { type: 'cluster', title: `C${n}` }));
    const votesOf = (card: { id: string }) => `/v1/workshops/${w.id}/cards/${card.id}/votes`;
    const cast = async (user: typeof fay, card: { id: string }, value: number) =>
      (await t.request<VoteOutput>('POST', votesOf(card), { token: user.token, body: { value } })).body;

    const votes = [
      await cast(pat, cards[0]!, 2),
      await cast(pat, cards[0]!, -1),
      await cast(otto, cards[0]!, 3),
      await cast(pat, cards[1]!, 1),
      await cast(otto, cards[2]!, -2),
    ];
    await talliesMatchVotes();
    expect(
      (await t.request('PUT', `${votesOf(cards[0]!)}/${votes[0]!.id}`, { token: pat.token, body: { value: -4 } }))
        .status,
    ).toBe(200);
    await talliesMatchVotes();
    expect((await t.request('DELETE', `${votesOf(cards[0]!)}/${votes[2]!.id}`, { token: otto.token })).status).toBe(
      204,
    );
    await talliesMatchVotes();
    // A merge moves the votes onto the new card.
    const merged = (
      await t.request<CardOutput>('POST', `/v1/workshops/${w.id}/cards/merge`, {
        token: fay.token,
        body: { cards_id: [cards[0]!.id, cards[1]!.id], title: 'Both' },
      })
    ).body;
    await talliesMatchVotes();
    expect(merged.summary.score).toBe(-4 - 1 + 1);
    // Deleting a card takes its votes along.
    expect((await t.request('DELETE', `/v1/workshops/${w.id}/cards/${merged.id}`, { token: fay.token })).status).toBe(
      204,
    );
    await talliesMatchVotes();
    expect((await t.request('DELETE', `/v1/workshops/${w.id}/votes`, { token: fay.token })).status).toBe(204);
    await talliesMatchVotes();
    const [left] = await t.rows<{ n: number }>(sql`SELECT count(*) AS n FROM vote_tallies WHERE workshop_id = ${w.id}`);
    expect(Number(left!.n)).toBe(0);
    await cast(pat, cards[2]!, 5);
    expect((await t.request('DELETE', `/v1/workshops/${w.id}`, { token: fay.token })).status).toBe(204);
    await talliesMatchVotes();
  });
});
