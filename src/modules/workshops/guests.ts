import { Hono } from 'hono';
import { tablesOf } from '../../db/database';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { AppError, notFound } from '../../http/errors';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { loadAccess } from '../access/load';
import { issueToken } from '../auth/service';
import { writeWorkshop } from '../events/recorder';
import { toUser } from '../users/schemas';
import { admitParticipant, joinRateLimits } from './join';
import { workshopFor } from './output';
import { findRunningByCode } from './repo';
import { GuestJoinInput, GuestSessionOutput } from './schemas';

/**
 * POST /v1/workshops/join/guest (CONTRACT §11): a new guest, with no e-mail and no password,
 * made a participant of the running workshop with this code, within the owner's plan, unless
 * the workshop keeps guests out (403 `guests_not_allowed`). The guest, their seat and their token
 * are one transaction.
 */
export async function joinAsGuest(deps: AppDeps, input: GuestJoinInput): Promise<GuestSessionOutput> {
  const found = await findRunningByCode(deps.database.db, input.access_code);
  if (!found) throw notFound('Workshop with this access code');
  return writeWorkshop(deps, found.id, async (tx, changes) => {
    const { users } = tablesOf(tx);
    const workshop = await findRunningByCode(tx, input.access_code);
    if (workshop?.id !== found.id) throw notFound('Workshop with this access code');
    if (!workshop.allowGuests) throw new AppError('guests_not_allowed', 'This workshop does not take guests; sign in to join it.');
    const [guest] = await tx.insert(users).values({ name: input.name, guest: true }).returning();
    await admitParticipant(deps, tx, changes, workshop, guest!);
    const token = await issueToken(tx, deps.config, guest!);
    return {
      token,
      user: toUser(guest!, deps.config),
      workshop: await workshopFor(tx, deps.config, await loadAccess(tx, workshop.id, guest!.id)),
    };
  });
}

/** The guest join, mounted before the routes that need a token. */
export function guestJoinRoutes(deps: AppDeps) {
  const { perAddress } = joinRateLimits(deps);
  return new Hono<AppEnv>().post(
    '/workshops/join/guest',
    doc({
      tag: 'Workshops',
      summary: 'Join a running workshop as a guest, with its access code and a name',
      status: 201,
      response: GuestSessionOutput,
      auth: false,
      errors: {
        403: 'guests_not_allowed: the workshop does not take guests',
        404: 'No running workshop has this code',
        409: 'attendee_limit_reached',
        429: 'Too many wrong codes from this address',
      },
    }),
    ...perAddress,
    jsonBody(GuestJoinInput),
    async (c) => c.json(await joinAsGuest(deps, c.req.valid('json')), 201),
  );
}
