import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { rateLimiter, type RateLimitInfo } from 'hono-rate-limiter';
import type { AppDeps } from '../../deps';
import { newId, nowIso } from '../../db/columns';
import { workshopMembers } from '../../db/schema/index';
import { AppError, notFound, toErrorResponse } from '../../http/errors';
import type { AppEnv, UserRow } from '../../http/env';
import { write } from '../events/recorder';
import { findAccess, loadAccess } from '../access/load';
import { ownerOf, workshopFor } from './output';
import { countMembers, findRunningByCode } from './repo';
import type { WorkshopOutput } from './schemas';

/**
 * POST /v1/workshops/join. A member joining again gets the workshop back (idempotent); anyone
 * else becomes a participant, within the owner's plan.
 */
export function joinWorkshop(deps: AppDeps, user: UserRow, accessCode: string): WorkshopOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    const workshop = findRunningByCode(tx, accessCode);
    if (!workshop) throw notFound('Workshop with this access code');
    if (!findAccess(db, workshop.id, user.id)) {
      const { plan } = ownerOf(db, deps.config, workshop);
      if (countMembers(tx, workshop.id, 'participant') >= plan.workshops_max_attendees) {
        throw new AppError('attendee_limit_reached', `This workshop is full: the ${plan.name} plan allows ${plan.workshops_max_attendees} participants.`);
      }
      const member = tx
        .insert(workshopMembers)
        .values({ id: newId(), workshopId: workshop.id, userId: user.id, role: 'participant', createdAt: nowIso() })
        .returning()
        .get();
      changes.record({
        workshopId: workshop.id,
        action: 'addMember',
        userId: user.id,
        change: { member: { id: member.id, user_id: member.userId, role: member.role } },
      });
    }
    return workshopFor(db, deps.config, loadAccess(db, workshop.id, user.id));
  });
}

/** Only a wrong code counts against the budget: joining, or a malformed body, costs nothing. */
const wasNotAWrongCode = (c: Context) => c.res.status !== 404;

function limitedJoins(deps: AppDeps, name: string, key: (c: Context<AppEnv>) => string): MiddlewareHandler<AppEnv> {
  const property = `joinLimit_${name}`;
  return rateLimiter<AppEnv>({
    windowMs: 60_000,
    limit: deps.config.joinAttemptsPerMinute,
    standardHeaders: false,
    skipSuccessfulRequests: true,
    requestWasSuccessful: wasNotAWrongCode,
    requestPropertyName: property,
    requestStorePropertyName: `${property}_store`,
    keyGenerator: (c) => `${name}:${key(c)}`,
    handler: (c) => {
      const info = (c.get as (key: string) => unknown)(property) as RateLimitInfo;
      const seconds = Math.max(1, Math.ceil(((info.resetTime?.getTime() ?? Date.now() + 60_000) - Date.now()) / 1000));
      const error = new AppError('rate_limited', `Too many wrong access codes; try again in ${seconds} s.`, {
        headers: { 'Retry-After': String(seconds) },
      });
      return toErrorResponse(error, c);
    },
  });
}

/**
 * Access codes cannot be guessed: wrong codes are limited per user and per client address.
 * Each app instance keeps its own counters (the limiter's in-memory store).
 */
export function joinRateLimits(deps: AppDeps) {
  return {
    perUser: limitedJoins(deps, 'user', (c) => c.get('user').id),
    perAddress: limitedJoins(deps, 'address', (c) => getConnInfo(c).remote.address ?? 'unknown'),
  };
}
