import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody, queryParams } from '../../http/validation';
import { cardRef } from '../../http/refs';
import { CreateItemInput, ItemsQuery, UpdateItemInput } from './schemas';
import { ItemOutput } from '../../domain/items';
import { addItem, changeItem, getItem, listItems, removeItem } from './service';

const tag = 'Items';
const path = '/workshops/:workshop_id/cards/:card_id/items';

export function itemsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      path,
      doc({ tag, summary: "List a card's items", response: v.array(ItemOutput) }),
      queryParams(ItemsQuery),
      async (c) => {
        return c.json(await listItems(deps, cardRef(c), c.req.valid('query')), 200);
      },
    )
    .post(
      path,
      doc({ tag, summary: 'Add an item to a card, in a section', status: 201, response: ItemOutput }),
      jsonBody(CreateItemInput),
      async (c) => {
        return c.json(await addItem(actingDeps(deps, c), cardRef(c), c.req.valid('json')), 201);
      },
    )
    .get(`${path}/:id`, doc({ tag, summary: 'Get an item', response: ItemOutput }), async (c) => {
      return c.json(await getItem(deps, cardRef(c), c.req.param('id')), 200);
    })
    .put(
      `${path}/:id`,
      doc({ tag, summary: "Change an item's content", response: ItemOutput }),
      jsonBody(UpdateItemInput),
      async (c) => {
        return c.json(await changeItem(actingDeps(deps, c), cardRef(c), c.req.param('id'), c.req.valid('json')), 200);
      },
    )
    .delete(`${path}/:id`, doc({ tag, summary: 'Remove an item', status: 204 }), async (c) => {
      await removeItem(actingDeps(deps, c), cardRef(c), c.req.param('id'));
      return c.body(null, 204);
    });
}
