import type { Context } from 'hono';
import type { AppDeps } from '../../deps';
import type { Tx } from '../../db/client';
import { newId, nowIso } from '../../db/columns';
import { workshopMembers } from '../../db/schema/index';
import { AppError, notFound } from '../../http/errors';
import { clientAddress, limitAttempts } from '../../http/middleware/rate-limit';
import type { AppEnv, UserRow } from '../../http/env';
import { write, type ChangeRecorder } from '../events/recorder';
import { findAccess, loadAccess, type WorkshopRow } from '../access/load';
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
    admitParticipant(deps, tx, changes, workshop, user.id);
    return workshopFor(db, deps.config, loadAccess(db, workshop.id, user.id));
  });
}

/**
 * Makes the user a participant of the workshop (joining with the code, accepting an invitation),
 * within the owner's plan (409 `attendee_limit_reached`); a member already stays as they are.
 * Runs inside the caller's write.
 */
export function admitParticipant(deps: Pick<AppDeps, 'config' | 'database'>, tx: Tx, changes: ChangeRecorder, workshop: WorkshopRow, userId: string): void {
  const { db } = deps.database;
  if (findAccess(db, workshop.id, userId)) return;
  const { plan } = ownerOf(db, deps.config, workshop);
  if (countMembers(tx, workshop.id, 'participant') >= plan.workshops_max_attendees) {
    throw new AppError('attendee_limit_reached', `This workshop is full: the ${plan.name} plan allows ${plan.workshops_max_attendees} participants.`);
  }
  const member = tx
    .insert(workshopMembers)
    .values({ id: newId(), workshopId: workshop.id, userId, role: 'participant', createdAt: nowIso() })
    .returning()
    .get();
  changes.record({ workshopId: workshop.id, action: 'addMember', userId, change: { member: { id: member.id, user_id: member.userId, role: member.role } } });
}

/**
 * Access codes cannot be guessed: wrong codes are limited per user and per client address. Only a
 * wrong code counts (a 404): joining, or a malformed body, costs nothing.
 */
export function joinRateLimits(deps: AppDeps) {
  const wrongCodes = (name: string, key: (c: Context<AppEnv>) => string) =>
    limitAttempts({
      name: `join_${name}`,
      limit: deps.config.joinAttemptsPerMinute,
      windowMs: 60_000,
      key,
      counts: (c) => c.res.status === 404,
      message: (seconds) => `Too many wrong access codes; try again in ${seconds} s.`,
      store: deps.attempts.create(),
    });
  return { perUser: wrongCodes('user', (c) => c.get('user').id), perAddress: wrongCodes('address', clientAddress(deps.config)) };
}
