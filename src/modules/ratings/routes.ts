import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody, queryParams } from '../../http/validation';
import { cardRef } from '../../http/refs';
import { CreateRatingInput, RatingOutput, RatingsQuery, UpdateRatingInput } from './schemas';
import { changeRating, getRating, listRatings, rateCard, removeRating } from './service';

const tag = 'Ratings';
const path = '/workshops/:workshop_id/cards/:card_id/ratings';

export function ratingsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(path, doc({ tag, summary: "List a card's ratings", response: v.array(RatingOutput) }), queryParams(RatingsQuery), (c) => {
      return c.json(listRatings(deps, cardRef(c), c.req.valid('query')), 200);
    })
    .post(path, doc({ tag, summary: 'Rate a card on a criterion', status: 201, response: RatingOutput }), jsonBody(CreateRatingInput), (c) => {
      return c.json(rateCard(deps, cardRef(c), c.req.valid('json')), 201);
    })
    .get(`${path}/:id`, doc({ tag, summary: 'Get a rating', response: RatingOutput }), (c) => {
      return c.json(getRating(deps, cardRef(c), c.req.param('id')), 200);
    })
    .put(`${path}/:rating_id`, doc({ tag, summary: "Change a rating's value", response: RatingOutput }), jsonBody(UpdateRatingInput), (c) => {
      return c.json(changeRating(deps, cardRef(c), c.req.param('rating_id'), c.req.valid('json')), 200);
    })
    .delete(`${path}/:id`, doc({ tag, summary: 'Remove a rating', status: 204 }), (c) => {
      removeRating(deps, cardRef(c), c.req.param('id'));
      return c.body(null, 204);
    });
}
