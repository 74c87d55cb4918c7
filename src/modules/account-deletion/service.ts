import type { AppDeps } from '../../deps';
import { nowIso } from '../../db/columns';
import type { Db } from '../../db/database';
import { lockUser } from '../../db/user-lock';
import { write } from '../../db/write';
import { userIdsNamedIn, withoutDeletedUsers } from '../../domain/deleted-users';
import { DELETED_USER_NAME } from '../../domain/users';
import { AppError, invalid } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { stillTheSamePassword, wrongPassword } from '../auth/account';
import { announceEndedWaysIn } from '../auth/address-proof';
import { verifyPassword } from '../auth/crypto';
import { deleteSessionsExcept, passwordHashOf } from '../auth/repo';
import { removeWorkshopExportFiles } from '../exports/service';
import { lockOrganization, otherActiveAdmins } from '../organizations/repo';
import { fileRefFromUrl } from '../uploads/file-links';
import { deleteFileRow } from '../uploads/repo';
import { AVATAR_CONTAINER, removeBlob, type FileRef } from '../uploads/storage';
import { findUser } from '../users/repo';
import { workshopForEvent } from '../workshops/output';
import { removeWorkshopIn } from '../workshops/service';
import {
  countsOf,
  deleteBelongings,
  deleteOrganizationRow,
  longestStandingFacilitator,
  organizationHasMore,
  passWorkshopOn,
  personalWorkshopsOf,
  scrubUser,
  seatsOf,
  setWebhookBody,
  signedInAt,
  unauthor,
  webhookBodiesNaming,
  workshopsTouchedBy,
} from './repo';
import type { AccountDeletionInput, AccountDeletionPreview } from './schemas';
import { msg } from '../../i18n/messages';

/*
 * Deleting an account (docs/api.md#an-accounts-life). The preview and the deletion follow one plan
 * (`planDeletion`), so what the console shows is what happens. The user's row stays as a scrubbed
 * tombstone: the votes and ratings it cast stay counted, and what it wrote elsewhere stays with no
 * author (`user_id` null), shown as a deleted user on every channel.
 */

/** An account without a password proves it is its owner by a sign-in this recent. */
const REAUTHENTICATION_WINDOW_MS = 10 * 60 * 1000;

type WorkshopRow = Awaited<ReturnType<typeof personalWorkshopsOf>>[number];
type Named = { id: string; name: string };

interface DeletionPlan {
  workshopsDeleted: WorkshopRow[];
  workshopsPassedOn: Array<{ workshop: WorkshopRow; to: Named }>;
  organizationsLeft: Named[];
  organizationsDeleted: Named[];
  lastAdminOf: Named[];
  counts: { sessions: number; apiTokens: number; notifications: number };
  passwordHash: string | null;
  reauthenticationRequired: boolean;
}

/** What deleting `userId`'s account would do now, read through `db` (a transaction's, for the deletion). */
async function planDeletion(db: Db, userId: string, sessionHash: string, now: string): Promise<DeletionPlan> {
  const plan: DeletionPlan = {
    workshopsDeleted: [],
    workshopsPassedOn: [],
    organizationsLeft: [],
    organizationsDeleted: [],
    lastAdminOf: [],
    counts: await countsOf(db, userId, now),
    passwordHash: (await passwordHashOf(db, userId)) ?? null,
    reauthenticationRequired: false,
  };
  for (const workshop of await personalWorkshopsOf(db, userId)) {
    const to = await longestStandingFacilitator(db, workshop.id, userId);
    if (to) plan.workshopsPassedOn.push({ workshop, to });
    else plan.workshopsDeleted.push(workshop);
  }
  for (const seat of await seatsOf(db, userId)) {
    const organization = { id: seat.id, name: seat.name };
    if (seat.role !== 'admin' || (await otherActiveAdmins(db, seat.id, seat.memberId)) > 0)
      plan.organizationsLeft.push(organization);
    else if (await organizationHasMore(db, seat.id, seat.memberId)) plan.lastAdminOf.push(organization);
    else plan.organizationsDeleted.push(organization);
  }
  if (plan.passwordHash === null) {
    const at = await signedInAt(db, userId, sessionHash);
    plan.reauthenticationRequired = !at || Date.parse(at) < Date.parse(now) - REAUTHENTICATION_WINDOW_MS;
  }
  return plan;
}

function toPreview(plan: DeletionPlan): AccountDeletionPreview {
  return {
    workshops_deleted: plan.workshopsDeleted.map((w) => ({ id: w.id, title: w.title })),
    workshops_passed_on: plan.workshopsPassedOn.map(({ workshop, to }) => ({
      id: workshop.id,
      title: workshop.title,
      to,
    })),
    organizations_left: plan.organizationsLeft,
    organizations_deleted: plan.organizationsDeleted,
    last_admin_of: plan.lastAdminOf,
    sessions: plan.counts.sessions,
    api_tokens: plan.counts.apiTokens,
    notifications: plan.counts.notifications,
    password_required: plan.passwordHash !== null,
    reauthentication_required: plan.reauthenticationRequired,
  };
}

/** GET /v1/user/me/deletion: what `DELETE /v1/user/me` would do now. */
export async function previewDeletion(
  deps: Pick<AppDeps, 'database'>,
  userId: string,
  sessionHash: string,
): Promise<AccountDeletionPreview> {
  return toPreview(await planDeletion(deps.database.db, userId, sessionHash, nowIso()));
}

function refuseLastAdmin(organizations: Named[]): AppError {
  const names = organizations.map((o) => `"${o.name}"`).join(', ');
  return new AppError('last_admin', msg('error.account.last_admin', { names }));
}

const reauthenticate = () => new AppError('reauthentication_required', msg('error.account.reauthenticate'));

/**
 * The password checked before the transaction (scrypt is slow): the account's, or, for an account
 * without one, a recent sign-in. Answers the hash checked, null for an account without a password.
 */
async function checkOwner(
  deps: Pick<AppDeps, 'database'>,
  userId: string,
  sessionHash: string,
  input: AccountDeletionInput,
): Promise<string | null> {
  const plan = await planDeletion(deps.database.db, userId, sessionHash, nowIso());
  if (plan.passwordHash === null) {
    if (plan.reauthenticationRequired) throw reauthenticate();
    return null;
  }
  if (input.password === undefined) throw invalid('password', msg('error.account.password_required'));
  if (!(await verifyPassword(input.password, plan.passwordHash))) throw wrongPassword();
  return plan.passwordHash;
}

/** A payload stored before the deletion (a webhook message waiting or kept), as it reads after it. */
function withoutUser(body: string, userId: string): string {
  const payload = JSON.parse(body) as unknown;
  return userIdsNamedIn(payload).has(userId) ? JSON.stringify(withoutDeletedUsers(payload, new Set([userId]))) : body;
}

/**
 * Locks the workshops the account is in or wrote in, then its row (workshops first, the user's row
 * last, as every write orders them), and answers those workshops. They are read again under the
 * user's lock, which the account's own writes elsewhere do not take: one that came in meanwhile is
 * locked then.
 */
async function lockWorkshopsTouched(deps: AppDeps, tx: Db, userId: string): Promise<string[]> {
  const before = await workshopsTouchedBy(tx, userId);
  for (const workshopId of before) await deps.database.lockWorkshop(tx, workshopId);
  await lockUser(tx, userId);
  const after = await workshopsTouchedBy(tx, userId);
  for (const workshopId of after) if (!before.includes(workshopId)) await deps.database.lockWorkshop(tx, workshopId);
  return after;
}

/**
 * DELETE /v1/user/me: one transaction, planned again under the locks of what it changes
 * (organizations and workshops first, the user's row last, as every write orders them). After
 * the commit, live connections of the account close on every instance, and the files of its
 * deleted workshops and its avatar are removed.
 */
export async function deleteAccount(
  deps: AppDeps,
  user: Pick<UserRow, 'id'>,
  sessionHash: string,
  input: AccountDeletionInput,
): Promise<void> {
  const userId = user.id;
  const checked = await checkOwner(deps, userId, sessionHash, input);
  const done = await write(deps, async (tx, changes) => {
    const now = nowIso();
    for (const seat of await seatsOf(tx, userId)) await lockOrganization(tx, seat.id);
    const touched = await lockWorkshopsTouched(deps, tx, userId);
    if (checked !== null) await stillTheSamePassword(tx, userId, checked);
    const plan = await planDeletion(tx, userId, sessionHash, now);
    if (plan.lastAdminOf.length > 0) throw refuseLastAdmin(plan.lastAdminOf);
    if (checked === null && plan.reauthenticationRequired) throw reauthenticate();

    for (const { workshop, to } of plan.workshopsPassedOn) {
      const previous = await workshopForEvent(tx, deps.config, workshop);
      const after = await workshopForEvent(tx, deps.config, await passWorkshopOn(tx, workshop.id, to.id, now));
      changes.record({
        workshopId: workshop.id,
        action: 'updateWorkshop',
        userId: null,
        change: { workshop: after, changes: { owner: [previous.owner, after.owner] } },
      });
    }
    const exportFiles: Array<{ workshopId: string; files: FileRef[] }> = [];
    for (const workshop of plan.workshopsDeleted)
      exportFiles.push({ workshopId: workshop.id, files: await removeWorkshopIn(tx, changes, deps, workshop, null) });
    for (const organization of plan.organizationsDeleted) await deleteOrganizationRow(tx, organization.id);

    // Readers of the workshops that stay hold the account's name on what it wrote and among the
    // members: each is told to read the workshop again (docs/realtime.md#server-events).
    const deleted = new Set(plan.workshopsDeleted.map((workshop) => workshop.id));
    for (const workshopId of touched.filter((id) => !deleted.has(id)))
      changes.record({
        workshopId,
        action: 'removeUser',
        userId: null,
        change: { user: { id: null, name: DELETED_USER_NAME } },
      });
    await unauthor(tx, userId);
    const { avatarUrl, email } = (await findUser(tx, userId))!;
    const avatar = fileRefFromUrl(deps.config, avatarUrl);
    const ownAvatar = avatar?.container === AVATAR_CONTAINER ? avatar : null;
    if (ownAvatar) await deleteFileRow(tx, ownAvatar);
    await deleteBelongings(tx, userId, email);
    const sessions = await deleteSessionsExcept(tx, userId, null);
    for (const message of await webhookBodiesNaming(tx, userId)) {
      const body = withoutUser(message.body, userId);
      if (body !== message.body) await setWebhookBody(tx, message.id, body);
    }
    await scrubUser(tx, userId, now);
    return { sessions, exportFiles, avatar: ownAvatar };
  });
  announceEndedWaysIn(deps.bus, { userId, sessions: done.sessions });
  deps.bus.emit('access-changed', { userId });
  deps.bus.emit('profile-changed', { userId });
  for (const { workshopId, files } of done.exportFiles) await removeWorkshopExportFiles(deps, workshopId, files);
  if (done.avatar) await removeBlob(deps.files, done.avatar);
}
