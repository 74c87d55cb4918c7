import { and, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { inList, inPairs } from '../../db/sql';
import type { StepPrefs } from '../../domain/permissions';

/*
 * Queries of who may do what: a caller's membership and role in a workshop, the current step's
 * prefs, and the card a piece of feedback is on. Every request on a workshop runs some of them:
 * all are prepared once per connection.
 */

/**
 * Whether the workshop of the row is in its lobby (docs/api.md#the-lobby): no current step, and
 * steps. The steps are looked for under another name, since the current step is joined as `steps`.
 */
function inLobbySql(db: Db) {
  const { workshops } = tablesOf(db);
  return sql<boolean>`case when ${workshops.currentStepId} is null
    then exists (select 1 from steps lobby_steps where lobby_steps.workshop_id = ${workshops.id})
    else false end`;
}

const queries = preparedPerDb((db: Db) => {
  const { organizationMembers, steps, workshopMembers, workshops } = tablesOf(db);
  const userId = sql.placeholder('userId');
  const isOrgAdmin = sql<boolean>`exists (select 1 from ${organizationMembers}
    where ${organizationMembers.organizationId} = ${workshops.ownerId}
      and ${organizationMembers.userId} = ${userId} and ${organizationMembers.role} = 'admin')`;
  const inLobby = inLobbySql(db);
  return {
    currentPrefs: named(
      db
        .select({ prefs: steps.prefs })
        .from(workshops)
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(eq(workshops.id, sql.placeholder('workshopId'))),
      'access_current_prefs',
    ),
    // Facilitators by membership, and the admins of the organization owning the workshop.
    facilitators: named(
      db
        .select({ userId: workshopMembers.userId })
        .from(workshopMembers)
        .where(
          and(eq(workshopMembers.workshopId, sql.placeholder('workshopId')), eq(workshopMembers.role, 'facilitator')),
        )
        .union(
          db
            .select({ userId: sql<string>`${organizationMembers.userId}` })
            .from(organizationMembers)
            .innerJoin(
              workshops,
              and(eq(workshops.ownerType, 'organization'), eq(workshops.ownerId, organizationMembers.organizationId)),
            )
            .where(and(eq(workshops.id, sql.placeholder('workshopId')), eq(organizationMembers.role, 'admin'))),
        ),
      'access_facilitators',
    ),
    // Every request on a workshop starts here, so the workshop, the caller's membership, their
    // organization-admin status and the current step's prefs come from one statement.
    access: named(
      db
        .select({
          workshop: workshops,
          memberRole: workshopMembers.role,
          orgAdmin: sql<boolean>`case when ${workshops.ownerType} = 'organization' then ${isOrgAdmin} else false end`,
          stepPrefs: steps.prefs,
          inLobby,
        })
        .from(workshops)
        .leftJoin(
          workshopMembers,
          and(eq(workshopMembers.workshopId, workshops.id), eq(workshopMembers.userId, userId)),
        )
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(eq(workshops.id, sql.placeholder('workshopId'))),
      'access_load',
    ),
  };
});

/** The statements of a batch of accesses (`findAccesses`): lists bound as one parameter (`inList`, `inPairs`). */
const batchQueries = preparedPerDb((db: Db) => {
  const { organizationMembers, steps, workshopMembers, workshops } = tablesOf(db);
  const p = sql.placeholder;
  return {
    workshops: named(
      db
        .select({ workshop: workshops, stepPrefs: steps.prefs, inLobby: inLobbySql(db) })
        .from(workshops)
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(inList(db, workshops.id, p('workshopIds'))),
      'access_batch_workshops',
    ),
    members: named(
      db
        .select({ workshopId: workshopMembers.workshopId, userId: workshopMembers.userId, role: workshopMembers.role })
        .from(workshopMembers)
        .where(inPairs(db, workshopMembers.workshopId, workshopMembers.userId, p('pairs'))),
      'access_batch_members',
    ),
    admins: named(
      db
        .select({ organizationId: organizationMembers.organizationId, userId: organizationMembers.userId })
        .from(organizationMembers)
        .where(
          and(
            eq(organizationMembers.role, 'admin'),
            inPairs(db, organizationMembers.organizationId, organizationMembers.userId, p('pairs')),
          ),
        ),
      'access_batch_admins',
    ),
  };
});

const cardQueries = preparedPerDb((db: Db) => {
  const { cards } = tablesOf(db);
  return {
    card: named(
      db
        .select({ id: cards.id, type: cards.type, userId: cards.userId })
        .from(cards)
        .where(and(eq(cards.id, sql.placeholder('cardId')), eq(cards.workshopId, sql.placeholder('workshopId')))),
      'feedback_target_card',
    ),
    cards: named(
      db
        .select({ id: cards.id, workshopId: cards.workshopId, type: cards.type, userId: cards.userId })
        .from(cards)
        .where(inPairs(db, cards.workshopId, cards.id, sql.placeholder('pairs'))),
      'feedback_target_cards',
    ),
  };
});

/** Pairs of ids, as `inPairs` takes them. */
type IdPairs = ReadonlyArray<readonly [string, string]>;

/**
 * The workshop, the user's membership role in it (null for none), whether they are an admin of
 * the organization owning it, the current step's prefs and whether the workshop is in its lobby;
 * undefined for a missing workshop.
 */
export async function accessRow(db: Db, workshopId: string, userId: string) {
  const [row] = await queries(db).access.execute({ workshopId, userId });
  return row;
}

/** The workshops of `workshopIds` that exist, each with its current step's prefs and whether it is in its lobby. */
export function workshopsWithStepPrefs(db: Db, workshopIds: readonly string[]) {
  return batchQueries(db).workshops.execute({ workshopIds: JSON.stringify(workshopIds) });
}

/** The memberships among `pairs` of (workshop id, user id), with their roles. */
export function memberRolesAmong(db: Db, pairs: IdPairs) {
  return batchQueries(db).members.execute({ pairs: JSON.stringify(pairs) });
}

/** The organization admins among `pairs` of (organization id, user id). */
export function organizationAdminsAmong(db: Db, pairs: IdPairs) {
  return batchQueries(db).admins.execute({ pairs: JSON.stringify(pairs) });
}

/** The current step's stored prefs: null with no current step (or no such workshop). */
export async function currentStepPrefs(db: Db, workshopId: string): Promise<StepPrefs | null> {
  const [row] = await queries(db).currentPrefs.execute({ workshopId });
  return row?.prefs ?? null;
}

/** The ids of the workshop's facilitators and, for an organization's workshop, of the organization's admins. */
export async function facilitatorUserIds(db: Db, workshopId: string): Promise<string[]> {
  return (await queries(db).facilitators.execute({ workshopId })).map((row) => row.userId);
}

/** The card, its type and author, if it belongs to the workshop. */
export async function cardOfWorkshop(db: Db, workshopId: string, cardId: string) {
  const [card] = await cardQueries(db).card.execute({ cardId, workshopId });
  return card;
}

/** The cards among `pairs` of (workshop id, card id) that belong to the workshop named with them. */
export function cardsOfWorkshops(db: Db, pairs: IdPairs) {
  return cardQueries(db).cards.execute({ pairs: JSON.stringify(pairs) });
}

/** Whether the user is a member of the organization and it requires single sign-on. */
export async function requiresSsoOf(db: Db, organizationId: string, userId: string): Promise<boolean> {
  const { organizationMembers, organizations } = tablesOf(db);
  const [row] = await db
    .select({ id: organizationMembers.id })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(
      and(
        eq(organizationMembers.organizationId, organizationId),
        eq(organizationMembers.userId, userId),
        eq(organizations.ssoRequired, true),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** The organizations requiring single sign-on of which the user is a member. */
export async function ssoOrganizationsOf(db: Db, userId: string): Promise<string[]> {
  const { organizationMembers, organizations } = tablesOf(db);
  const rows = await db
    .select({ organizationId: organizationMembers.organizationId })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(and(eq(organizationMembers.userId, userId), eq(organizations.ssoRequired, true)));
  return rows.map((row) => row.organizationId);
}

/** The workshop a canvas zone belongs to. */
export async function workshopOfZone(db: Db, zoneId: string): Promise<string | null> {
  const { canvases, zones } = tablesOf(db);
  const [row] = await db
    .select({ workshopId: canvases.workshopId })
    .from(zones)
    .innerJoin(canvases, eq(canvases.id, zones.canvasId))
    .where(eq(zones.id, zoneId));
  return row?.workshopId ?? null;
}
