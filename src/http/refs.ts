import type { Context } from 'hono';
import type { CardRef } from '../domain/card-ref';
import type { AppEnv } from './env';

/** The card reference of a request on a `/workshops/:workshop_id/cards/:card_id/…` route. */
export function cardRef(c: Context<AppEnv>): CardRef {
  return {
    workshopId: c.req.param('workshop_id') ?? '',
    cardId: c.req.param('card_id') ?? '',
    caller: c.get('user'),
  };
}
