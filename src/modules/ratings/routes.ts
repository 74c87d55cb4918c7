import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody, queryParams } from '../../http/validation';
import { cardRef } from '../../http/refs';
import { CreateRatingInput, RatingsQuery, UpdateRatingInput } from './schemas';
import { RatingOutput } from '../../domain/ratings';
import { changeRating, getRating, listRatings, rateCard, removeRating } from './service';

const tag = 'Ratings';
const path = '/workshops/:workshop_id/cards/:card_id/ratings';

export function ratingsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      path,
      doc({ tag, summary: "List a card's ratings", response: v.array(RatingOutput) }),
      queryParams(RatingsQuery),
      async (c) => {
        return c.json(await listRatings(deps, cardRef(c), c.req.valid('query')), 200);
      },
    )
    .post(
      path,
      doc({ tag, summary: 'Rate a card on a criterion', status: 201, response: RatingOutput }),
      jsonBody(CreateRatingInput),
      async (c) => {
        return c.json(await rateCard(actingDeps(deps, c), cardRef(c), c.req.valid('json')), 201);
      },
    )
    .get(`${path}/:id`, doc({ tag, summary: 'Get a rating', response: RatingOutput }), async (c) => {
      return c.json(await getRating(deps, cardRef(c), c.req.param('id')), 200);
    })
    .put(
      `${path}/:id`,
      doc({ tag, summary: "Change a rating's value", response: RatingOutput }),
      jsonBody(UpdateRatingInput),
      async (c) => {
        return c.json(await changeRating(actingDeps(deps, c), cardRef(c), c.req.param('id'), c.req.valid('json')), 200);
      },
    )
    .delete(`${path}/:id`, doc({ tag, summary: 'Remove a rating', status: 204 }), async (c) => {
      await removeRating(actingDeps(deps, c), cardRef(c), c.req.param('id'));
      return c.body(null, 204);
    });
}
