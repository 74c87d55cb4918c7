import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { organizationMembers, steps, workshopMembers, workshops } from '../../db/schema/index';
import { AppError, forbidden, notFound } from '../../http/errors';
import { DEFAULT_PREFS, type StepPrefs } from '../steps/prefs';

export type WorkshopRow = typeof workshops.$inferSelect;
export type WorkshopRole = 'facilitator' | 'participant';

/** Who the caller is in a workshop, and what the current step lets participants do. */
export interface WorkshopAccess {
  workshop: WorkshopRow;
  userId: string;
  role: WorkshopRole;
  /** The current step's prefs, or the defaults when there is no current step. */
  prefs: StepPrefs;
}

/**
 * Everything a member may try. Participant rights come from the current step's prefs;
 * facilitators may do all of it.
 */
export type Action =
  | 'read'
  | 'facilitate'
  | 'add_idea'
  | 'add_cluster'
  | 'vote_on_ideas'
  | 'vote_on_clusters'
  | 'rate'
  | 'comment'
  | 'items'
  | 'attachment'
  | { edit_card: { authorId: string } }
  | { delete_card: { authorId: string } };

const userId = sql.placeholder('userId');
const isOrgAdmin = sql<number>`exists (select 1 from ${organizationMembers}
  where ${organizationMembers.organizationId} = ${workshops.ownerId}
    and ${organizationMembers.userId} = ${userId} and ${organizationMembers.role} = 'admin')`;

const queries = preparedPerDb((db: Db) => ({
  // Every request on a workshop starts here, so the workshop, the caller's membership, their
  // organization-admin status and the current step's prefs come from one statement.
  access: db
    .select({
      workshop: workshops,
      memberRole: workshopMembers.role,
      orgAdmin: sql<number>`case when ${workshops.ownerType} = 'organization' then ${isOrgAdmin} else 0 end`,
      stepPrefs: steps.prefs,
    })
    .from(workshops)
    .leftJoin(workshopMembers, and(eq(workshopMembers.workshopId, workshops.id), eq(workshopMembers.userId, userId)))
    .leftJoin(steps, eq(steps.id, workshops.currentStepId))
    .where(eq(workshops.id, sql.placeholder('workshopId')))
    .prepare(),
}));

/**
 * The caller's role in a workshop (admins of the owning organization act as facilitators), with
 * the workshop and the current step's prefs; null for a stranger or a missing workshop.
 */
export function findAccess(db: Db, workshopId: string, userId: string): WorkshopAccess | null {
  const row = queries(db).access.get({ workshopId, userId });
  if (!row) return null;
  const role: WorkshopRole | null = row.memberRole === 'facilitator' || row.orgAdmin ? 'facilitator' : row.memberRole;
  if (!role) return null;
  return { workshop: row.workshop, userId, role, prefs: row.stepPrefs ?? DEFAULT_PREFS };
}

/**
 * Loads the caller's access to a workshop. Non-members get 404, never 403: a stranger must not
 * learn that the workshop exists.
 */
export function loadAccess(db: Db, workshopId: string, userId: string): WorkshopAccess {
  const access = findAccess(db, workshopId, userId);
  if (!access) throw notFound('Workshop');
  return access;
}

/**
 * The one permission check: throws 403 when the caller may not do `action` now, and 409
 * `workshop_archived` for any write to an archived workshop. `allowArchived` is for the one write
 * an archived workshop accepts: the update that sets it running again.
 */
export function authorize(access: WorkshopAccess, action: Action, options: { allowArchived?: boolean } = {}): void {
  if (action === 'read') return;
  if (access.role !== 'facilitator' && !participantMay(access, action)) {
    throw forbidden(describeRefusal(action));
  }
  if (access.workshop.state === 'archived' && !options.allowArchived) {
    throw new AppError('workshop_archived', 'This workshop is archived; set its state back to running to change it.');
  }
}

export function isFacilitator(access: WorkshopAccess): boolean {
  return access.role === 'facilitator';
}

/** With `allow_display_votes: false` a participant sees only their own votes. */
export function seesAllVotes(access: WorkshopAccess): boolean {
  return access.role === 'facilitator' || access.prefs.allow_display_votes;
}

/** With `allow_display_ratings: false` a participant sees only their own ratings. */
export function seesAllRatings(access: WorkshopAccess): boolean {
  return access.role === 'facilitator' || access.prefs.allow_display_ratings;
}

/** Feedback (votes, ratings, items, comments, attachments) belongs to its author; facilitators manage all. */
export function requireOwnerOrFacilitator(access: WorkshopAccess, authorId: string): void {
  if (access.role !== 'facilitator' && authorId !== access.userId) {
    throw forbidden('Only its author or a facilitator may change this.');
  }
}

function participantMay(access: WorkshopAccess, action: Exclude<Action, 'read'>): boolean {
  const p = access.prefs;
  if (typeof action === 'object') {
    const [scope, authorId] = 'edit_card' in action ? [p.allow_edit, action.edit_card.authorId] : [p.allow_delete, action.delete_card.authorId];
    return scope === 'all' || (scope === 'their' && authorId === access.userId);
  }
  switch (action) {
    case 'facilitate':
      return false;
    case 'add_idea':
      return p.allow_add_idea;
    case 'add_cluster':
      return p.allow_add_cluster;
    case 'vote_on_ideas':
      return p.allow_vote_on_ideas;
    case 'vote_on_clusters':
      return p.allow_vote_on_clusters;
    case 'rate':
      return p.allow_rate;
    case 'comment':
      return p.allow_comment;
    case 'items':
      return p.allow_items;
    case 'attachment':
      return p.allow_attachment;
  }
}

function describeRefusal(action: Exclude<Action, 'read'>): string {
  if (action === 'facilitate') return 'Only facilitators may do this.';
  if (typeof action === 'object') return 'edit_card' in action ? 'The current step does not let you edit this card.' : 'The current step does not let you delete this card.';
  return `The current step does not allow this (${action.replaceAll('_', ' ')}).`;
}
