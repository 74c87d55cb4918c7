import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { cardRef } from '../../http/refs';
import { CreateVoteInput, UpdateVoteInput } from './schemas';
import { VoteOutput } from '../../domain/votes';
import { castVote, changeVote, getVote, listVotes, removeVote } from './service';

const tag = 'Votes';
const path = '/workshops/:workshop_id/cards/:card_id/votes';

export function votesRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(path, doc({ tag, summary: "List a card's votes", response: v.array(VoteOutput) }), async (c) => {
      return c.json(await listVotes(deps, cardRef(c)), 200);
    })
    .post(
      path,
      doc({ tag, summary: 'Vote on a card', status: 201, response: VoteOutput }),
      jsonBody(CreateVoteInput),
      async (c) => {
        return c.json(await castVote(actingDeps(deps, c), cardRef(c), c.req.valid('json')), 201);
      },
    )
    .get(`${path}/:id`, doc({ tag, summary: 'Get a vote', response: VoteOutput }), async (c) => {
      return c.json(await getVote(deps, cardRef(c), c.req.param('id')), 200);
    })
    .put(
      `${path}/:id`,
      doc({ tag, summary: "Change a vote's value", response: VoteOutput }),
      jsonBody(UpdateVoteInput),
      async (c) => {
        return c.json(await changeVote(actingDeps(deps, c), cardRef(c), c.req.param('id'), c.req.valid('json')), 200);
      },
    )
    .delete(`${path}/:id`, doc({ tag, summary: 'Withdraw a vote', status: 204 }), async (c) => {
      await removeVote(actingDeps(deps, c), cardRef(c), c.req.param('id'));
      return c.body(null, 204);
    });
}
