import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { AppError } from '../../http/errors';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { loadAccess } from '../access/load';
import { idempotencyKeys } from '../idempotency/middleware';
import { issueToken } from '../auth/tokens';
import { insertGuest } from '../users/repo';
import { toUser } from '../users/schemas';
import { admitMember, joinRateLimits, titleOfJoinKey, writeRunningWorkshop } from './join';
import { workshopFor } from './output';
import { GuestJoinInput, GuestSessionOutput } from './schemas';
import { DEFAULT_TIME_ZONE, negotiateLanguage } from '../../domain/languages';
import { msg } from '../../i18n/messages';

/**
 * POST /v1/workshops/join/guest (docs/api.md#guests): a new guest, with no e-mail and no password,
 * made a participant of the running workshop with this code (or join key), within the owner's plan, unless
 * the workshop keeps guests out (403 `guests_not_allowed`). The guest, their seat and their token
 * are one transaction. Their locale is the one chosen on the page, else the request's
 * `Accept-Language` among the service's languages, else the workshop's language
 * (docs/api.md#languages-and-time-zones).
 */
export function joinAsGuest(
  deps: AppDeps,
  input: GuestJoinInput,
  acceptLanguage: string | undefined,
): Promise<GuestSessionOutput> {
  return writeRunningWorkshop(deps, input, async (tx, changes, workshop) => {
    if (!workshop.allowGuests) throw new AppError('guests_not_allowed', msg('error.workshops.no_guests'));
    const guest = await insertGuest(tx, {
      name: input.name,
      locale: input.locale ?? negotiateLanguage(acceptLanguage) ?? workshop.language,
      timeZone: input.time_zone ?? DEFAULT_TIME_ZONE,
    });
    await admitMember(deps, tx, changes, workshop, guest);
    return {
      token: await issueToken(tx, deps.config, guest),
      user: toUser(guest, deps.config),
      workshop: await workshopFor(tx, deps.config, await loadAccess(tx, workshop.id, guest)),
    };
  });
}

/** The guest join, mounted before the routes that need a token. */
export function guestJoinRoutes(deps: AppDeps) {
  const { perAddress } = joinRateLimits(deps);
  return new Hono<AppEnv>()
    .get(
      '/workshops/join/:join_key',
      doc({
        tag: 'Workshops',
        summary: 'The title of the running workshop a join link opens, for the join page to name it',
        response: v.object({ title: v.string() }),
        auth: false,
        errors: { 404: 'No running workshop has this key (the workshop ended or has a new code)' },
      }),
      async (c) => {
        const title = await titleOfJoinKey(deps.database.db, deps.config.secret, c.req.param('join_key'));
        if (title === null) throw new AppError('not_found', msg('error.workshops.join_link_unknown'));
        return c.json({ title }, 200);
      },
    )
    .post(
      '/workshops/join/guest',
      doc({
        tag: 'Workshops',
        summary: 'Join a running workshop as a guest, with its access code (or the key of its join link) and a name',
        status: 201,
        response: GuestSessionOutput,
        auth: false,
        errors: {
          403: 'guests_not_allowed: the workshop does not take guests',
          404: 'No running workshop has this code, or this key (the workshop ended or has a new code)',
          409: 'attendee_limit_reached',
          429: 'Too many wrong codes from this address (a join key is never refused)',
        },
      }),
      ...perAddress,
      // The key after the limits: `idempotencyKeys`.
      idempotencyKeys(deps),
      jsonBody(GuestJoinInput),
      async (c) => c.json(await joinAsGuest(deps, c.req.valid('json'), c.req.header('accept-language')), 201),
    );
}
