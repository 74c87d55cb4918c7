import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CardDetailOutput } from '../src/modules/cards/schemas';
import type { VoteOutput } from '../src/domain/votes';
import { expectError, seedCard, seedMember, seedWorkshop, type TestUser, inTurn } from './helpers/factories';
import { useServer, useUsers } from './helpers/cast';
import { repetitions } from './helpers/matrix';

/*
 * Random sequences of vote POST / PUT / DELETE by several users over a few cards, against random
 * limits, driven over HTTP. A model predicts every answer: a 409 must be a real over-limit and an
 * accepted vote must fit. After every step the stored votes must match the model, keep within
 * every budget, and each card's summary.score must equal the sum of its listed votes.
 *
 * Among the slowest files (10 to 20 s, on each store): 25 random scenarios of up to 30 votes (10 in `npm test`),
 * and after every vote the stored votes, every budget and every card's score are read back over
 * REST: some 6,000 requests, each held against the OpenAPI document.
 */

const t = useServer();
const people: readonly TestUser[] = useUsers(t, 'Ann', 'Bob', 'Cid', 'Dee');

interface Limits {
  positive: number;
  negative: number;
  maxPositive: number;
  maxNegative: number;
}

interface ModelVote {
  id: string;
  userId: string;
  cardIndex: number;
  value: number;
}

type Command =
  | { kind: 'post'; actor: number; card: number; value: number }
  | { kind: 'put'; actor: number; pick: number; value: number }
  | { kind: 'delete'; actor: number; pick: number };

const voteValue = fc.integer({ min: -3, max: 3 }).filter((n) => n !== 0);
const limit = fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: 6 }));
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('post' as const), actor: fc.nat(3), card: fc.nat(2), value: voteValue }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('put' as const), actor: fc.nat(3), pick: fc.nat(), value: voteValue }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), actor: fc.nat(3), pick: fc.nat() }) },
);
const scenario = fc.record({
  limits: fc.record({
    positive: limit,
    negative: limit,
    maxPositive: fc.integer({ min: 1, max: 4 }),
    maxNegative: fc.integer({ min: 1, max: 4 }),
  }),
  users: fc.integer({ min: 2, max: 4 }),
  cards: fc.integer({ min: 2, max: 3 }),
  commands: fc.array(command, { minLength: 5, maxLength: 30, size: 'max' }),
});

/** Whether the owner's votes, with `candidate` in place of the vote it replaces, stay within every limit. */
function fits(limits: Limits, model: ModelVote[], candidate: ModelVote): boolean {
  const mine = model.filter((v) => v.userId === candidate.userId && v.id !== candidate.id).concat(candidate);
  return withinBudget(limits, mine);
}

function withinBudget(limits: Limits, userVotes: ModelVote[]): boolean {
  const pos = (vs: ModelVote[]) => vs.reduce((sum, v) => sum + Math.max(v.value, 0), 0);
  const neg = (vs: ModelVote[]) => vs.reduce((sum, v) => sum + Math.max(-v.value, 0), 0);
  const cards = new Set(userVotes.map((v) => v.cardIndex));
  for (const card of cards) {
    const onCard = userVotes.filter((v) => v.cardIndex === card);
    if (pos(onCard) > limits.maxPositive || neg(onCard) > limits.maxNegative) return false;
  }
  if (limits.positive !== -1 && pos(userVotes) > limits.positive) return false;
  if (limits.negative !== -1 && neg(userVotes) > limits.negative) return false;
  return true;
}

describe('vote limits (property)', () => {
  it('never lets a budget be exceeded and refuses only real over-limits', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ limits, users: userCount, cards: cardCount, commands }) => {
        const users = people.slice(0, userCount);
        const [facilitator] = users as [TestUser];
        const workshop = await seedWorkshop(t, facilitator, {
          votePositive: limits.positive,
          voteNegative: limits.negative,
          voteMaxPositive: limits.maxPositive,
          voteMaxNegative: limits.maxNegative,
        });
        for (const user of users.slice(1)) await seedMember(t, workshop.id, user);
        const cluster = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
        const cards = [
          cluster,
          ...(await inTurn(cardCount - 1, () => seedCard(t, workshop.id, facilitator, { parentId: cluster.id }))),
        ];
        const cardPath = (index: number) => `/v1/workshops/${workshop.id}/cards/${cards[index]!.id}`;
        const model: ModelVote[] = [];

        for (const cmd of commands) {
          const actor = users[cmd.actor % users.length]!;
          const isFacilitator = actor === facilitator;
          if (cmd.kind === 'post') {
            const cardIndex = cmd.card % cards.length;
            const candidate = { id: '', userId: actor.id, cardIndex, value: cmd.value };
            const res = await t.request<VoteOutput>('POST', `${cardPath(cardIndex)}/votes`, {
              token: actor.token,
              body: { value: cmd.value },
            });
            if (fits(limits, model, candidate)) {
              expect(res.status, JSON.stringify(res.body)).toBe(201);
              model.push({ ...candidate, id: res.body.id });
            } else {
              expectError(res, 409, 'vote_limit_reached');
            }
          } else if (model.length > 0) {
            const target = model[cmd.pick % model.length]!;
            const path = `${cardPath(target.cardIndex)}/votes/${target.id}`;
            const allowed = isFacilitator || target.userId === actor.id;
            if (cmd.kind === 'put') {
              const res = await t.request('PUT', path, { token: actor.token, body: { value: cmd.value } });
              if (!allowed) expectError(res, 403, 'forbidden');
              else if (cmd.value === target.value || fits(limits, model, { ...target, value: cmd.value })) {
                expect(res.status, JSON.stringify(res.body)).toBe(200);
                expect(res.body).toEqual({ id: target.id, value: cmd.value, user_id: target.userId });
                target.value = cmd.value;
              } else {
                expectError(res, 409, 'vote_limit_reached');
              }
            } else {
              const res = await t.request('DELETE', path, { token: actor.token });
              if (!allowed) expectError(res, 403, 'forbidden');
              else {
                expect(res.status).toBe(204);
                model.splice(model.indexOf(target), 1);
              }
            }
          }

          // The stored votes are the model's, and every user is within every budget.
          const { votes } = t.tables;
          const stored = await t.db.select().from(votes).where(eq(votes.workshopId, workshop.id));
          const asModel = stored.map((row) => ({
            id: row.id,
            userId: row.userId,
            cardIndex: cards.findIndex((c) => c.id === row.cardId),
            value: row.value,
          }));
          expect(new Set(asModel.map((v) => `${v.id}:${v.userId}:${v.cardIndex}:${v.value}`))).toEqual(
            new Set(model.map((v) => `${v.id}:${v.userId}:${v.cardIndex}:${v.value}`)),
          );
          for (const user of users)
            expect(
              withinBudget(
                limits,
                asModel.filter((v) => v.userId === user.id),
              ),
            ).toBe(true);

          // Each card's score is the sum of the votes it lists.
          for (let index = 0; index < cards.length; index++) {
            const listed = await t.request<VoteOutput[]>('GET', `${cardPath(index)}/votes`, {
              token: facilitator.token,
            });
            const card = await t.request<CardDetailOutput>('GET', cardPath(index), { token: facilitator.token });
            expect(card.status, JSON.stringify(card.body)).toBe(200);
            expect(card.body.summary.score).toBe(
              listed.body.reduce((sum: number, v: { value: number }) => sum + v.value, 0),
            );
          }
        }
      }),
      { numRuns: repetitions(25, 10) },
    );
  }, 60_000);
});
