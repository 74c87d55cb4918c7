/*
 * An organization's members: listed, added by address (linked at once to a confirmed account,
 * else a pending seat), their role changed and removed, the last admin kept one
 * (docs/api.md#organizations).
 */
import type { Config } from '../../config';
import type { Db } from '../../db/database';
import { isUniqueViolation } from '../../db/errors';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import type { Caller } from '../../domain/permissions';
import { t } from '../../i18n/messages';
import { mailLanguage } from '../mail/language';
import { queueMailFrom } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { lockUser } from '../../db/user-lock';
import { findUser, userIdByEmail } from '../users/repo';
import { loadOrganizationAccess, requireOrganizationAdmin } from './access';
import {
  deleteMember,
  findMember,
  insertMember,
  lockOrganization,
  memberByEmail,
  membersOf,
  otherActiveAdmins,
  updateMemberRole,
} from './repo';
import { toMember, type OrganizationMemberOutput, type OrganizationRole, type OrganizationRow } from './schemas';
import type { ApiTokenIdentity } from '../../domain/api-scopes';
import type { OrganizationDeps } from './service';
import { msg } from '../../i18n/messages';

/** Who manages members: the user the request acts as, and the API token it came with, if any. */
export interface MemberCaller {
  user: UserRow;
  apiToken?: ApiTokenIdentity | undefined;
}

/**
 * Granting, changing or removing the admin role takes a person who is an admin: an API token
 * (an organization's, which acts as an admin, or an admin's personal one) adds, changes and
 * removes facilitators only. Otherwise a leaked `members:write` token could make any account an
 * admin, and that admin make tokens with every scope (docs/integrations.md#tokens-and-roles).
 */
function requirePersonForAdminRole(caller: MemberCaller, touchesAdmin: boolean): void {
  if (caller.apiToken && touchesAdmin) {
    throw new AppError('insufficient_scope', msg('error.organizations.api_token_admins'));
  }
}

export async function listMembers(
  deps: OrganizationDeps,
  organizationId: string,
  caller: Caller,
): Promise<OrganizationMemberOutput[]> {
  const { db } = deps.database;
  await loadOrganizationAccess(db, organizationId, caller);
  return (await membersOf(db, organizationId)).map(toMember);
}

/**
 * Adds an address as a member. With a confirmed account it is linked at once. Without one, or with
 * an account whose address is not confirmed, the seat stays pending until that address is
 * confirmed (`confirmEmail` links it): anyone may sign up with any address, so an unconfirmed
 * account has no part of an organization it was added to by address. The mail says what to do.
 */
export async function addMember(
  deps: OrganizationDeps,
  organizationId: string,
  caller: MemberCaller,
  input: { email: string; role: OrganizationRole },
): Promise<OrganizationMemberOutput> {
  const actor = caller.user;
  try {
    return await deps.database.transaction(async (tx) => {
      await lockOrganization(tx, organizationId);
      const { organization } = requireOrganizationAdmin(await loadOrganizationAccess(tx, organizationId, actor));
      requirePersonForAdminRole(caller, input.role === 'admin');
      if (await memberByEmail(tx, organizationId, input.email)) throw alreadyMember();
      const account = await lockedAccountOf(tx, input.email, actor.id);
      const confirmed = account?.confirmedAt ? account : undefined;
      const member = await insertMember(tx, {
        organizationId,
        userId: confirmed?.id ?? null,
        email: input.email,
        role: input.role,
      });
      const standing = !account ? 'none' : confirmed ? 'confirmed' : 'unconfirmed';
      await mailNewMember(tx, deps.config, {
        organization,
        actor,
        email: input.email,
        role: input.role,
        account: standing,
        locale: account?.locale,
      });
      return toMember({
        member,
        user: confirmed ? { name: confirmed.name, email: input.email, avatarUrl: confirmed.avatarUrl } : null,
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyMember();
    throw err;
  }
}

/**
 * Admins remove anyone; any member may remove themselves (leave). The last admin with an account
 * cannot go: nobody would be left to manage the organization. An admin is removed by a person only.
 */
export async function removeMember(
  deps: OrganizationDeps,
  organizationId: string,
  caller: MemberCaller,
  memberId: string,
): Promise<void> {
  const removedUserId = await deps.database.transaction(async (tx) => {
    // Two admins removing each other at once: the second waits, then finds what the first left.
    await lockOrganization(tx, organizationId);
    const access = await loadOrganizationAccess(tx, organizationId, caller.user);
    if (access.membership.id !== memberId) requireOrganizationAdmin(access);
    const target = await findMember(tx, organizationId, memberId);
    if (!target) throw notFound('member');
    requirePersonForAdminRole(caller, target.member.role === 'admin');
    if (
      target.member.role === 'admin' &&
      target.member.userId &&
      (await otherActiveAdmins(tx, organizationId, memberId)) === 0
    ) {
      throw new AppError('conflict', msg('error.organizations.last_admin'));
    }
    await deleteMember(tx, memberId);
    return target.member.userId;
  });
  // An admin acted as facilitator in the organization's workshops; live connections re-check.
  if (removedUserId) deps.bus.emit('access-changed', { userId: removedUserId });
}

/**
 * Changes a member's role (admins). Making someone admin or taking the role away takes a person
 * (`requirePersonForAdminRole`); the last admin with an account stays one. The member's access to
 * the organization's workshops follows at once (admins act as their facilitators).
 */
export async function changeMemberRole(
  deps: OrganizationDeps,
  organizationId: string,
  caller: MemberCaller,
  memberId: string,
  input: { role: OrganizationRole },
): Promise<OrganizationMemberOutput> {
  const { member, changedUserId } = await deps.database.transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    requireOrganizationAdmin(await loadOrganizationAccess(tx, organizationId, caller.user));
    const target = await findMember(tx, organizationId, memberId);
    if (!target) throw notFound('member');
    requirePersonForAdminRole(caller, target.member.role === 'admin' || input.role === 'admin');
    if (target.member.role === input.role) return { member: toMember(target), changedUserId: null };
    if (
      target.member.role === 'admin' &&
      target.member.userId &&
      (await otherActiveAdmins(tx, organizationId, memberId)) === 0
    ) {
      throw new AppError('conflict', msg('error.organizations.last_admin'));
    }
    await updateMemberRole(tx, memberId, input.role);
    return {
      member: toMember({ ...target, member: { ...target.member, role: input.role } }),
      changedUserId: target.member.userId,
    };
  });
  if (changedUserId) deps.bus.emit('access-changed', { userId: changedUserId });
  return member;
}

/**
 * The account an added address has, if any, read under its lock: a confirmation of that address
 * takes the same lock before it links the pending seats, so it either committed before this read
 * (the seat is linked here) or links the seat this transaction writes once it has committed. The
 * adder's row is locked too, in id order with it: the invitation mail's daily budget locks the
 * adder's row next (`queueMailFrom`), and two admins adding each other's address at once must not
 * take the two locks in opposite orders.
 */
async function lockedAccountOf(tx: Db, email: string, actorId: string): Promise<UserRow | undefined> {
  const foundId = await userIdByEmail(tx, email);
  if (!foundId) return undefined;
  for (const id of [foundId, actorId].sort()) await lockUser(tx, id);
  return findUser(tx, foundId);
}

/** The mail to an added address, in its account's locale (English for an address without one). */
async function mailNewMember(
  tx: Db,
  config: Config,
  input: {
    organization: OrganizationRow;
    actor: UserRow;
    email: string;
    role: OrganizationRole;
    account: 'confirmed' | 'unconfirmed' | 'none';
    locale: string | undefined;
  },
): Promise<void> {
  const { organization, actor, email, role } = input;
  const from = { id: actor.id, perDay: config.invitationMailsPerDay };
  const lang = mailLanguage(input.locale);
  const names = { actor: actor.name, organization: organization.name };
  const openWorkshops = { label: t(lang, 'mail.organization.open_action'), url: config.publicUrl };
  if (input.account === 'confirmed') {
    await queueMailFrom(tx, from, {
      to: email,
      subject: t(lang, 'mail.organization.added.subject', names),
      ...renderMail(lang, {
        greeting: t(lang, 'mail.greeting.anonymous'),
        paragraphs: [t(lang, 'mail.organization.added.body', { ...names, role })],
        action: openWorkshops,
      }),
    });
    return;
  }
  // Not a member yet: the mail says how the address becomes one (confirmed, or signed up first).
  const next =
    input.account === 'unconfirmed'
      ? { paragraph: t(lang, 'mail.organization.join_after_confirming'), action: openWorkshops }
      : {
          paragraph: t(lang, 'mail.organization.join_after_signup'),
          // '@' is legal in a query string; keeping it makes the link readable in the mail.
          action: {
            label: t(lang, 'mail.organization.signup_action'),
            url: `${config.publicUrl}/signup?email=${encodeURIComponent(email).replace(/%40/g, '@')}`,
          },
        };
  await queueMailFrom(tx, from, {
    to: email,
    subject: t(lang, 'mail.organization.invited.subject', names),
    ...renderMail(lang, {
      greeting: t(lang, 'mail.greeting.anonymous'),
      paragraphs: [t(lang, 'mail.organization.invited.body', { ...names, role }), next.paragraph],
      action: next.action,
    }),
  });
}

function alreadyMember() {
  return new AppError('already_member', msg('error.organizations.already_member'));
}
