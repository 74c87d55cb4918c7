import type { Context } from 'hono';
import { budget } from '../../config-limits';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { clientKey } from '../../http/client-address';
import { hasBody } from '../../http/validation';
import { forbidden, notFound } from '../../http/errors';
import { limitAttempts } from '../../http/middleware/rate-limit';
import type { AppEnv, UserRow } from '../../http/env';
import { writeWorkshop } from '../../db/write';
import type { ChangeRecorder } from '../../domain/recorder';
import { findAccess, loadAccess, type WorkshopRow } from '../access/load';
import { requireMayHoldRole } from '../access/rules';
import type { WorkshopRole } from '../../domain/permissions';
import { changeMemberRole, requireAttendeeRoom, toUserRole } from './members';
import { workshopFor } from './output';
import { workshopIdOfKey, keyOpens } from './join-key';
import { hasAnySeat, insertMember, memberOfUser } from './members-repo';
import { findRunningByCode, findWorkshop } from './repo';
import type { JoinBy } from './schemas';
import type { WorkshopOutput } from '../../domain/workshops';
import { msg } from '../../i18n/messages';

/**
 * POST /v1/workshops/join. A member joining again gets the workshop back (idempotent); anyone
 * else becomes a participant, within the owner's plan.
 */
export function joinWorkshop(deps: AppDeps, user: UserRow, by: JoinBy): Promise<WorkshopOutput> {
  return writeRunningWorkshop(deps, by, async (tx, changes, workshop) => {
    await admitMember(deps, tx, changes, workshop, user);
    return workshopFor(tx, deps.config, await loadAccess(tx, workshop.id, user));
  });
}

/**
 * A write on the running workshop with this access code or join key (404 for none, the same for
 * both), under its lock: the workshop is looked up before the lock is taken (`writeWorkshop`), and
 * again under it (it may have been archived, or given a new code, meanwhile). Both joins, members'
 * and guests', go through it.
 */
export async function writeRunningWorkshop<T>(
  deps: AppDeps,
  by: JoinBy,
  write: (tx: Db, changes: ChangeRecorder, workshop: WorkshopRow) => Promise<T>,
): Promise<T> {
  const found = await findRunning(deps.database.db, deps.config.secret, by);
  if (!found) throw notFound('workshop_with_code');
  return writeWorkshop(deps, found.id, async (tx, changes) => {
    const workshop = await findRunning(tx, deps.config.secret, by);
    if (workshop?.id !== found.id) throw notFound('workshop_with_code');
    return write(tx, changes, workshop);
  });
}

/** The title of the running workshop a join link's key opens, or null: what the join page names. */
export async function titleOfJoinKey(db: Db, secret: string, joinKey: string): Promise<string | null> {
  return (await findRunning(db, secret, { join_key: joinKey }))?.title ?? null;
}

/** The running workshop a join names: by its code, or by a key made for its current code. */
async function findRunning(db: Db, secret: string, by: JoinBy): Promise<WorkshopRow | undefined> {
  if (by.join_key === undefined) return findRunningByCode(db, by.access_code!);
  const workshopId = workshopIdOfKey(by.join_key);
  const workshop = workshopId === null ? undefined : await findWorkshop(db, workshopId);
  return workshop?.state === 'running' && keyOpens(secret, workshop, by.join_key) ? workshop : undefined;
}

/**
 * Makes the user a member of the workshop with `role` (joining with the code: a participant;
 * accepting an invitation: the role it names). Participants come within the owner's plan (409
 * `attendee_limit_reached`); facilitators are not attendees. A member already stays as they are,
 * except that a participant invited as a facilitator becomes one. A guest takes part in the one
 * workshop they joined, as a participant (docs/api.md#guests): one who is a member anywhere gets no
 * second seat (403), whichever route asked. Runs inside the caller's write.
 */
export async function admitMember(
  deps: Pick<AppDeps, 'config'>,
  tx: Db,
  changes: ChangeRecorder,
  workshop: WorkshopRow,
  user: Pick<UserRow, 'id' | 'name' | 'guest'>,
  role: WorkshopRole = 'participant',
): Promise<void> {
  const userId = user.id;
  requireMayHoldRole(user, role);
  const access = await findAccess(tx, workshop.id, userId);
  if (access) {
    // A participant (who joined with the code meanwhile) accepting an invitation to facilitate.
    if (role === 'facilitator' && access.role === 'participant') {
      const seat = await memberOfUser(tx, workshop.id, userId);
      if (seat) await changeMemberRole(tx, changes, userId, seat, user, role);
    }
    return;
  }
  if (user.guest && (await hasAnySeat(tx, userId))) throw forbidden(msg('error.workshops.guest_one_workshop'));
  if (role === 'participant') await requireAttendeeRoom(deps, tx, workshop);
  const member = await insertMember(tx, workshop.id, userId, role);
  changes.record({
    workshopId: workshop.id,
    action: 'addMember',
    userId,
    change: { member: toUserRole(member, user) },
  });
}

/**
 * Access codes cannot be guessed: wrong codes are limited per user, and per client address by the
 * minute and by the day (both join routes, members' and guests', count against the same budgets).
 * Only a wrong code counts (a 404): joining, or a malformed body, costs nothing. The per-address
 * minute is sized for a room behind one address, the day for guessing
 * (docs/configuration.md#a-room-behind-one-address-and-guessing-codes). A join link's key
 * is no guess: it is never refused, so one person typing wrong codes cannot keep a room behind
 * their address out; a wrong key still counts as a wrong code.
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
      unguessable: byJoinKey,
    });
  const address = (c: Context<AppEnv>) => clientKey(c, config);
  return {
    perUser: wrongCodes('user', 'joinAttemptsPerMinute', (c) => c.get('user').id),
    perAddress: [
      wrongCodes('address', 'joinAttemptsPerAddressPerMinute', address),
      wrongCodes('address_day', 'joinAttemptsPerAddressPerDay', address),
    ] as const,
  };
}

/**
 * Whether the body joins with a link's key rather than a typed code. Read before the body is
 * validated (the guest route's limits come before its Idempotency-Key, and that before the body):
 * a body that is not what it seems is answered 400 by validation, which costs nothing either way.
 */
async function byJoinKey(c: Context<AppEnv>): Promise<boolean> {
  if (!hasBody(c)) return false;
  try {
    const body: unknown = await c.req.json();
    return typeof body === 'object' && body !== null && 'join_key' in body;
  } catch {
    return false;
  }
}
