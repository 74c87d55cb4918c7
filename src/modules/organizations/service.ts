import { eq } from 'drizzle-orm';
import type { Config } from '../../config';
import type { Db, Tx } from '../../db/client';
import { nowIso } from '../../db/columns';
import { organizationMembers, organizations, users } from '../../db/schema/index';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import type { DomainEventBus } from '../events/bus';
import { queueMailFrom } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { readAvatar, replaceAvatar } from '../uploads/avatars';
import type { FormFields } from '../uploads/multipart';
import { loadOrganizationAccess, requireOrganizationAdmin } from './access';
import { findMember, memberByEmail, membersOf, organizationsOf, otherActiveAdmins } from './repo';
import {
  toMember,
  toOrganization,
  type OrganizationMemberOutput,
  type OrganizationOutput,
  type OrganizationRole,
  type OrganizationRow,
} from './schemas';

interface OrganizationDeps {
  config: Config;
  database: { db: Db };
  bus: DomainEventBus;
}

/** The creator becomes the organization's first admin; organizations start on the `team` plan. */
export function createOrganization(deps: OrganizationDeps, user: UserRow, input: { name: string }): OrganizationOutput {
  const organization = deps.database.db.transaction((tx) => {
    const row = tx.insert(organizations).values({ name: input.name, planName: 'team' }).returning().get();
    tx.insert(organizationMembers).values({ organizationId: row.id, userId: user.id, email: user.email, role: 'admin' }).run();
    return row;
  }, { behavior: 'immediate' });
  return toOrganization(organization, deps.config);
}

export function listMyOrganizations(deps: OrganizationDeps, userId: string): OrganizationOutput[] {
  return organizationsOf(deps.database.db, userId).map((row) => toOrganization(row, deps.config));
}

export function getOrganization(deps: OrganizationDeps, organizationId: string, userId: string): OrganizationOutput {
  return toOrganization(loadOrganizationAccess(deps.database.db, organizationId, userId).organization, deps.config);
}

export function renameOrganization(deps: OrganizationDeps, organizationId: string, userId: string, input: { name: string }): void {
  deps.database.db.transaction((tx) => {
    requireOrganizationAdmin(loadOrganizationAccess(tx, organizationId, userId));
    tx.update(organizations).set({ name: input.name, updatedAt: nowIso() }).where(eq(organizations.id, organizationId)).run();
  }, { behavior: 'immediate' });
}

/** Takes the form rather than the image so that only admins get to make the server decode one. */
export async function setOrganizationAvatar(deps: OrganizationDeps, organizationId: string, userId: string, form: FormFields): Promise<void> {
  requireOrganizationAdmin(loadOrganizationAccess(deps.database.db, organizationId, userId));
  const image = await readAvatar(form);
  // Checked again inside the write: membership may have changed while the image was decoded.
  replaceAvatar(deps, {
    userId,
    image,
    current: (tx) => requireOrganizationAdmin(loadOrganizationAccess(tx, organizationId, userId)).organization.avatarUrl,
    store: (tx, url) => {
      tx.update(organizations).set({ avatarUrl: url, updatedAt: nowIso() }).where(eq(organizations.id, organizationId)).run();
    },
  });
}

export function listMembers(deps: OrganizationDeps, organizationId: string, userId: string): OrganizationMemberOutput[] {
  const { db } = deps.database;
  loadOrganizationAccess(db, organizationId, userId);
  return membersOf(db, organizationId).map(toMember);
}

/**
 * Adds an address as a member. With an account it is linked at once; without one it stays pending
 * (signup links it by address) and an invitation to sign up is mailed.
 */
export function addMember(
  deps: OrganizationDeps,
  organizationId: string,
  actor: UserRow,
  input: { email: string; role: OrganizationRole },
): OrganizationMemberOutput {
  const { db } = deps.database;
  try {
    return db.transaction((tx) => {
      const { organization } = requireOrganizationAdmin(loadOrganizationAccess(tx, organizationId, actor.id));
      if (memberByEmail(tx, organizationId, input.email)) throw alreadyMember();
      const user = tx.select().from(users).where(eq(users.email, input.email)).get();
      const member = tx
        .insert(organizationMembers)
        .values({ organizationId, userId: user?.id ?? null, email: input.email, role: input.role })
        .returning()
        .get();
      mailNewMember(tx, deps.config, { organization, actor, email: input.email, role: input.role, hasAccount: Boolean(user) });
      return toMember({ member, user: user ? { name: user.name, email: user.email, avatarUrl: user.avatarUrl } : null });
    }, { behavior: 'immediate' });
  } catch (err) {
    if (isUniqueViolation(err)) throw alreadyMember();
    throw err;
  }
}

/**
 * Admins remove anyone; any member may remove themselves (leave). The last admin with an account
 * cannot go: nobody would be left to manage the organization.
 */
export function removeMember(deps: OrganizationDeps, organizationId: string, userId: string, memberId: string): void {
  const removedUserId = deps.database.db.transaction((tx) => {
    const access = loadOrganizationAccess(tx, organizationId, userId);
    if (access.membership.id !== memberId) requireOrganizationAdmin(access);
    const target = findMember(tx, organizationId, memberId);
    if (!target) throw notFound('Member');
    if (target.member.role === 'admin' && target.member.userId && otherActiveAdmins(tx, organizationId, memberId) === 0) {
      throw new AppError('conflict', 'An organization needs at least one admin; make someone else admin first.');
    }
    tx.delete(organizationMembers).where(eq(organizationMembers.id, memberId)).run();
    return target.member.userId;
  }, { behavior: 'immediate' });
  // An admin acted as facilitator in the organization's workshops; live connections re-check.
  if (removedUserId) deps.bus.emit('access-changed', { userId: removedUserId });
}

function mailNewMember(
  tx: Tx,
  config: Config,
  input: { organization: OrganizationRow; actor: UserRow; email: string; role: OrganizationRole; hasAccount: boolean },
) {
  const { organization, actor, email, role } = input;
  const from = { id: actor.id, perDay: config.invitationMailsPerDay };
  if (input.hasAccount) {
    queueMailFrom(tx, from, {
      to: email,
      subject: `You were added to ${organization.name}`,
      ...renderMail({ greeting: 'Hello,', paragraphs: [`${actor.name} added you to the organization "${organization.name}" as ${role}.`], action: { label: 'Open the workshops', url: config.publicUrl } }),
    });
    return;
  }
  // '@' is legal in a query string; keeping it makes the link readable in the mail.
  const link = `${config.publicUrl}/signup?email=${encodeURIComponent(email).replace(/%40/g, '@')}`;
  queueMailFrom(tx, from, {
    to: email,
    subject: `${actor.name} invited you to ${organization.name}`,
    ...renderMail({
      greeting: 'Hello,',
      paragraphs: [`${actor.name} invited you to the organization "${organization.name}" as ${role}.`, 'Create your account with this e-mail address to join.'],
      action: { label: 'Create my account', url: link },
    }),
  });
}

function alreadyMember() {
  return new AppError('already_member', 'This address is already a member of the organization.');
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}
