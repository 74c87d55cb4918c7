import { and, asc, eq, isNotNull, not, or, type SQL } from 'drizzle-orm';
import { creationOrder } from '../../db/creation-order';
import { tablesOf, type Db } from '../../db/database';
import { inList } from '../../db/sql';

/*
 * The queries of a person's data export (docs/api.md#your-data-export): what the account holds,
 * and what its person wrote in workshops that are not theirs, one workshop at a time.
 */

/** A workshop as the export names it. */
export interface ExportedWorkshopRow {
  id: string;
  title: string;
  createdAt: string;
  ownerType: 'user' | 'organization';
  ownerId: string;
}

function workshopColumns(db: Db) {
  const { workshops } = tablesOf(db);
  return {
    id: workshops.id,
    title: workshops.title,
    createdAt: workshops.createdAt,
    ownerType: workshops.ownerType,
    ownerId: workshops.ownerId,
  };
}

/** A personal workshop is the user's own: owned by the user, not by an organization. */
function personalTo(db: Db, userId: string): SQL {
  const { workshops } = tablesOf(db);
  return and(eq(workshops.ownerType, 'user'), eq(workshops.ownerId, userId))!;
}

/** The user's personal workshops (archived ones too), oldest first. */
export async function personalWorkshopsOf(db: Db, userId: string): Promise<ExportedWorkshopRow[]> {
  const { workshops } = tablesOf(db);
  return db
    .select(workshopColumns(db))
    .from(workshops)
    .where(personalTo(db, userId))
    .orderBy(asc(workshops.createdAt), asc(workshops.id));
}

/**
 * The workshops other than the user's personal ones where the user wrote a card, comment or item,
 * voted, rated or attached a file, oldest first. Only their ids and titles: what the user wrote
 * there is read workshop by workshop (`contributionsIn`).
 */
export async function contributedWorkshopsOf(db: Db, userId: string): Promise<ExportedWorkshopRow[]> {
  const { attachments, cards, comments, items, ratings, votes, workshops } = tablesOf(db);
  const touched = new Set<string>();
  for (const table of [cards, comments, votes, ratings, items, attachments]) {
    const rows = await db.selectDistinct({ workshopId: table.workshopId }).from(table).where(eq(table.userId, userId));
    for (const row of rows) touched.add(row.workshopId);
  }
  if (touched.size === 0) return [];
  return db
    .select(workshopColumns(db))
    .from(workshops)
    .where(and(inList(db, workshops.id, [...touched]), not(personalTo(db, userId))))
    .orderBy(asc(workshops.createdAt), asc(workshops.id));
}

/** What the user wrote in one workshop, each kind oldest first. */
export async function contributionsIn(db: Db, workshopId: string, userId: string) {
  const { attachments, cards, comments, criteria, items, ratings, sections, votes, workshopMembers } = tablesOf(db);
  const [membership] = await db
    .select({ role: workshopMembers.role })
    .from(workshopMembers)
    .where(and(eq(workshopMembers.workshopId, workshopId), eq(workshopMembers.userId, userId)));
  return {
    role: membership?.role ?? null,
    cards: await db
      .select()
      .from(cards)
      .where(and(eq(cards.workshopId, workshopId), eq(cards.userId, userId)))
      .orderBy(asc(cards.number)),
    comments: await db
      .select()
      .from(comments)
      .where(and(eq(comments.workshopId, workshopId), eq(comments.userId, userId)))
      .orderBy(asc(comments.createdAt), asc(creationOrder(comments))),
    votes: await db
      .select()
      .from(votes)
      .where(and(eq(votes.workshopId, workshopId), eq(votes.userId, userId)))
      .orderBy(asc(votes.createdAt), asc(creationOrder(votes))),
    ratings: await db
      .select({ rating: ratings, criterion: criteria.title })
      .from(ratings)
      .innerJoin(criteria, eq(criteria.id, ratings.criteriumId))
      .where(and(eq(ratings.workshopId, workshopId), eq(ratings.userId, userId)))
      .orderBy(asc(ratings.createdAt), asc(creationOrder(ratings))),
    items: await db
      .select({ item: items, section: sections.title })
      .from(items)
      .innerJoin(sections, eq(sections.id, items.sectionId))
      .where(and(eq(items.workshopId, workshopId), eq(items.userId, userId)))
      .orderBy(asc(items.createdAt), asc(creationOrder(items))),
    attachments: await db
      .select({
        id: attachments.id,
        cardId: attachments.cardId,
        name: attachments.name,
        mimetype: attachments.mimetype,
        size: attachments.size,
        authorVisibility: attachments.authorVisibility,
        createdAt: attachments.createdAt,
      })
      .from(attachments)
      .where(and(eq(attachments.workshopId, workshopId), eq(attachments.userId, userId)))
      .orderBy(asc(attachments.createdAt), asc(creationOrder(attachments))),
  };
}

export type Contributions = Awaited<ReturnType<typeof contributionsIn>>;

/** The organizations the user is a member of, with their role, in the order they joined. */
export async function organizationRolesOf(db: Db, userId: string) {
  const { organizationMembers, organizations } = tablesOf(db);
  return db
    .select({
      id: organizations.id,
      name: organizations.name,
      role: organizationMembers.role,
      joinedAt: organizationMembers.createdAt,
    })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(asc(organizationMembers.createdAt), asc(creationOrder(organizationMembers)));
}

/** The names of these organizations (those owning the workshops the export names). */
export async function organizationNames(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { organizations } = tablesOf(db);
  const rows = await db
    .select({ id: organizations.id, name: organizations.name })
    .from(organizations)
    .where(inList(db, organizations.id, ids));
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The workshops the user is a member of, with their role, in the order they joined. */
export async function workshopMembershipsOf(db: Db, userId: string) {
  const { workshopMembers, workshops } = tablesOf(db);
  return db
    .select({
      id: workshops.id,
      title: workshops.title,
      ownerType: workshops.ownerType,
      ownerId: workshops.ownerId,
      role: workshopMembers.role,
      joinedAt: workshopMembers.createdAt,
    })
    .from(workshopMembers)
    .innerJoin(workshops, eq(workshops.id, workshopMembers.workshopId))
    .where(eq(workshopMembers.userId, userId))
    .orderBy(asc(workshopMembers.createdAt), asc(creationOrder(workshopMembers)));
}

/**
 * The API tokens that are the user's or that the user made for an organization, revoked ones too,
 * oldest first. Never the secret's hash: only what the token lists show.
 */
export async function apiTokensOf(db: Db, userId: string) {
  const { apiTokens } = tablesOf(db);
  return db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      organizationId: apiTokens.organizationId,
      scopes: apiTokens.scopes,
      prefix: apiTokens.prefix,
      createdAt: apiTokens.createdAt,
      expiresAt: apiTokens.expiresAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
    })
    .from(apiTokens)
    .where(or(eq(apiTokens.userId, userId), and(isNotNull(apiTokens.organizationId), eq(apiTokens.createdBy, userId))))
    .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id));
}

/** The OpenID provider identities the user signs in with. */
export async function identitiesOf(db: Db, userId: string) {
  const { userIdentities } = tablesOf(db);
  return db
    .select({
      issuer: userIdentities.issuer,
      subject: userIdentities.subject,
      email: userIdentities.email,
      createdAt: userIdentities.createdAt,
    })
    .from(userIdentities)
    .where(eq(userIdentities.userId, userId))
    .orderBy(asc(userIdentities.createdAt), asc(userIdentities.id));
}
