import { describe, expect, it } from 'vitest';
import type { CardOutput } from '../src/modules/cards/schemas';
import type { VoteOutput } from '../src/modules/votes/schemas';
import { useServer, useUsers } from './helpers/cast';
import { seedCard, seedWorkshopWith } from './helpers/factories';

/*
 * Budgets and scores read `vote_tallies`, which triggers keep from `votes`. Whatever path changes
 * votes (cast, change, withdraw, merge, card and bulk deletes), the tallies must equal the sums.
 */

const t = useServer();
const [fay, pat, otto] = useUsers(t, 'Fay', 'Pat', 'Otto');

function talliesMatchVotes() {
  const { sqlite } = t.deps.database;
  const tallies = sqlite.prepare('SELECT card_id, user_id, workshop_id, positive, negative FROM vote_tallies ORDER BY card_id, user_id').all();
  const sums = sqlite
    .prepare(
      `SELECT card_id, user_id, workshop_id, sum(max(value, 0)) AS positive, sum(max(-value, 0)) AS negative
         FROM votes GROUP BY card_id, user_id ORDER BY card_id, user_id`,
    )
    .all();
  expect(tallies).toEqual(sums);
}

describe('vote tallies', () => {
  it('follow every way votes change', async () => {
    const w = seedWorkshopWith(t, fay, [pat, otto], { votePositive: -1, voteNegative: -1, voteMaxPositive: 100, voteMaxNegative: 100 });
    const cards = [0, 1, 2].map((n) => seedCard(t, w.id, fay, { type: 'cluster', title: `C${n}` }));
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
    talliesMatchVotes();
    expect((await t.request('PUT', `${votesOf(cards[0]!)}/${votes[0]!.id}`, { token: pat.token, body: { value: -4 } })).status).toBe(200);
    talliesMatchVotes();
    expect((await t.request('DELETE', `${votesOf(cards[0]!)}/${votes[2]!.id}`, { token: otto.token })).status).toBe(204);
    talliesMatchVotes();
    // A merge moves the votes onto the new card.
    const merged = (await t.request<CardOutput>('POST', `/v1/workshops/${w.id}/cards/merge`, { token: fay.token, body: { cards_id: [cards[0]!.id, cards[1]!.id], title: 'Both' } })).body;
    talliesMatchVotes();
    expect(merged.summary.score).toBe(-4 - 1 + 1);
    // Deleting a card takes its votes along.
    expect((await t.request('DELETE', `/v1/workshops/${w.id}/cards/${merged.id}`, { token: fay.token })).status).toBe(204);
    talliesMatchVotes();
    expect((await t.request('DELETE', `/v1/workshops/${w.id}/votes`, { token: fay.token })).status).toBe(204);
    talliesMatchVotes();
    expect(t.deps.database.sqlite.prepare('SELECT count(*) FROM vote_tallies WHERE workshop_id = ?').pluck().get(w.id)).toBe(0);
    await cast(pat, cards[2]!, 5);
    expect((await t.request('DELETE', `/v1/workshops/${w.id}`, { token: fay.token })).status).toBe(204);
    talliesMatchVotes();
  });
});
