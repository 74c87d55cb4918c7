import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { cardRef } from '../../http/refs';
import { CreateCommentInput } from './schemas';
import { CommentOutput } from '../../domain/comments';
import { addComment, getComment, listComments, removeComment } from './service';

const tag = 'Comments';
const path = '/workshops/:workshop_id/cards/:card_id/comments';

export function commentsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      path,
      doc({ tag, summary: "List a card's comments, oldest first", response: v.array(CommentOutput) }),
      async (c) => {
        return c.json(await listComments(deps, cardRef(c)), 200);
      },
    )
    .post(
      path,
      doc({ tag, summary: 'Comment on a card', status: 201, response: CommentOutput }),
      jsonBody(CreateCommentInput),
      async (c) => {
        return c.json(await addComment(actingDeps(deps, c), cardRef(c), c.req.valid('json')), 201);
      },
    )
    .get(`${path}/:id`, doc({ tag, summary: 'Get a comment', response: CommentOutput }), async (c) => {
      return c.json(await getComment(deps, cardRef(c), c.req.param('id')), 200);
    })
    .delete(`${path}/:id`, doc({ tag, summary: 'Delete a comment', status: 204 }), async (c) => {
      await removeComment(actingDeps(deps, c), cardRef(c), c.req.param('id'));
      return c.body(null, 204);
    });
}
