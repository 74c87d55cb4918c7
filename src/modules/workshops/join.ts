import type { Context } from 'hono';
import { budget } from '../../config';
import type { AppDeps } from '../../deps';
import { tablesOf, type Db } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { clientKey } from '../../http/client-address';
import { AppError, forbidden, notFound } from '../../http/errors';
import { limitAttempts } from '../../http/middleware/rate-limit';
import type { AppEnv, UserRow } from '../../http/env';
import { writeWorkshop, type ChangeRecorder } from '../events/recorder';
import { findAccess, loadAccess, type WorkshopRow } from '../access/load';
import { toUserRole } from './members';
import { ownerOf, workshopFor } from './output';
import { countMembers, findRunningByCode, hasAnySeat } from './repo';
import type { WorkshopOutput } from './schemas';

/**
 * POST /v1/workshops/join. A member joining again gets the workshop back (idempotent); anyone
 * else becomes a participant, within the owner's plan.
 */
export function joinWorkshop(deps: AppDeps, user: UserRow, accessCode: string): Promise<WorkshopOutput> {
  return writeRunningWorkshop(deps, accessCode, async (tx, changes, workshop) => {
    await admitParticipant(deps, tx, changes, workshop, user);
    return workshopFor(tx, deps.config, await loadAccess(tx, workshop.id, user.id));
  });
}

/**
 * A write on the running workshop with this access code (404 for none), under its lock: the code is
 * looked up before the lock is taken (`writeWorkshop`), and again under it (the workshop may have
 * been archived meanwhile). Both joins, members' and guests', go through it.
 */
export async function writeRunningWorkshop<T>(
  deps: AppDeps,
  accessCode: string,
  write: (tx: Db, changes: ChangeRecorder, workshop: WorkshopRow) => Promise<T>,
): Promise<T> {
  const found = await findRunningByCode(deps.database.db, accessCode);
  if (!found) throw notFound('Workshop with this access code');
  return writeWorkshop(deps, found.id, async (tx, changes) => {
    const workshop = await findRunningByCode(tx, accessCode);
    if (workshop?.id !== found.id) throw notFound('Workshop with this access code');
    return write(tx, changes, workshop);
  });
}

/**
 * Makes the user a participant of the workshop (joining with the code, accepting an invitation),
 * within the owner's plan (409 `attendee_limit_reached`); a member already stays as they are. A
 * guest takes part in the one workshop they joined (CONTRACT §11): one who is a member anywhere
 * gets no second seat (403), whichever route asked. Runs inside the caller's write.
 */
export async function admitParticipant(deps: Pick<AppDeps, 'config'>, tx: Db, changes: ChangeRecorder, workshop: WorkshopRow, user: Pick<UserRow, 'id' | 'name' | 'guest'>): Promise<void> {
  const userId = user.id;
  const { workshopMembers } = tablesOf(tx);
  if (await findAccess(tx, workshop.id, userId)) return;
  if (user.guest && (await hasAnySeat(tx, userId))) throw forbidden('A guest takes part in the workshop they joined only; sign up to join others.');
  const { plan } = await ownerOf(tx, deps.config, workshop);
  if ((await countMembers(tx, workshop.id, 'participant')) >= plan.workshops_max_attendees) {
    throw new AppError('attendee_limit_reached', `This workshop is full: the ${plan.name} plan allows ${plan.workshops_max_attendees} participants.`);
  }
  const [member] = await tx
    .insert(workshopMembers)
    .values({ id: newId(), workshopId: workshop.id, userId, role: 'participant', createdAt: nowIso() })
    .returning();
  changes.record({ workshopId: workshop.id, action: 'addMember', userId, change: { member: toUserRole(member!, user) } });
}

/**
 * Access codes cannot be guessed: wrong codes are limited per user, and per client address by the
 * minute and by the day (both join routes, members' and guests', count against the same budgets).
 * Only a wrong code counts (a 404): joining, or a malformed body, costs nothing. The per-address
 * minute is sized for a room behind one address (CONTRACT §11), the day for guessing (README).
 */
export function joinRateLimits(deps: AppDeps) {
  // Both join routes take them; one name is one budget (`Limiters.limiter`).
  const { config } = deps;
  type Limit = 'joinAttemptsPerMinute' | 'joinAttemptsPerAddressPerMinute' | 'joinAttemptsPerAddressPerDay';
  const wrongCodes = (name: string, limit: Limit, key: (c: Context<AppEnv>) => string) =>
    limitAttempts(deps.attempts.limiter({ name: `join_${name}`, ...budget(config, limit) }), {
      key,
      counts: (c) => c.res.status === 404,
      message: (seconds) => `Too many wrong access codes; try again in ${seconds} s.`,
    });
  const address = (c: Context<AppEnv>) => clientKey(c, config);
  return {
    perUser: wrongCodes('user', 'joinAttemptsPerMinute', (c) => c.get('user').id),
    perAddress: [wrongCodes('address', 'joinAttemptsPerAddressPerMinute', address), wrongCodes('address_day', 'joinAttemptsPerAddressPerDay', address)] as const,
  };
}
