import { asc, eq, sql } from 'drizzle-orm';
import type { Config } from '../../config';
import { tablesOf, type Db } from '../../db/database';
import { jsonSqlOf } from '../../db/json-sql';
import { named, preparedPerDb } from '../../db/prepared';
import { toCriterion, type CriterionFields, type CriterionOutput } from '../../domain/criteria';
import type { RatingOutput } from '../../domain/ratings';
import { toSection, type SectionOutput } from '../../domain/sections';
import { planFor } from '../users/schemas';
import { seesAllRatings } from '../access/rules';
import { DEFAULT_PREFS, type StepPrefs, type WorkshopAccess } from '../../domain/permissions';
import { visibleCardAuthors, type CardAuthors } from '../access/visibility';
import { inList } from '../../db/sql';
import type { LoadedAccess, WorkshopRow } from '../access/load';
import { workshopPublicUrl, type OwnerOutput, type WorkshopOutput } from '../../domain/workshops';
import { DEFAULT_VIEW, mergeView } from '../../domain/view';

/**
 * Whose ratings the criteria carry: everyone's, only one user's (display prefs hide the others),
 * or none (the event log, which must not leak ratings past display prefs).
 */
export type RatingsScope = 'all' | 'none' | { userId: string };

interface DetailsRow {
  /** JSON `{id, name, avatar_url, plan_name}` of the owner, null if it is gone. */
  owner: string | null;
  /** JSON arrays, in position order. */
  sections: string;
  criteria: string;
  /** JSON array of the ratings in scope, oldest first. */
  ratings: string;
  /** JSON of the current step's prefs; null with no current step. */
  step_prefs: string | null;
}

// GET /v1/workshops/:id is a hot path: the owner, sections, criteria and ratings come from one
// prepared statement, in which the database builds the JSON (as text, in each dialect's words).
const details = preparedPerDb((db: Db) => {
  const { workshops } = tablesOf(db);
  // 'all', or the id of the only user whose ratings are included.
  const ratingsOf = sql.placeholder('ratingsOf');
  // '1' for ratings on every card; else only on cards by the authors listed in `cardAuthors` (a private step).
  const allCards = sql.placeholder('allCards');
  const { object, list, asText } = jsonSqlOf(db);
  const ownerOf = (table: string, alias: string) =>
    sql`(select ${asText(sql`${object}('id', ${sql.raw(alias)}.id, 'name', ${sql.raw(alias)}.name, 'avatar_url', ${sql.raw(alias)}.avatar_url, 'plan_name', ${sql.raw(alias)}.plan_name)`)} from ${sql.raw(table)} ${sql.raw(alias)} where ${sql.raw(alias)}.id = workshops.owner_id)`;
  // Drizzle leaves columns of a single-table select unqualified, which subqueries would capture.
  return named(
    db
      .select({
        owner: sql<
          string | null
        >`case when workshops.owner_type = 'organization' then ${ownerOf('organizations', 'o')} else ${ownerOf('users', 'u')} end`,
        sections: sql<string>`${list(sql`${object}('id', s.id, 'title', s.title)`, 's.position, s.id', sql`sections s where s.workshop_id = workshops.id`)}`,
        criteria: sql<string>`${list(sql`${object}('id', c.id, 'title', c.title, 'scale', c.scale)`, 'c.position, c.id', sql`criteria c where c.workshop_id = workshops.id`)}`,
        ratings: sql<string>`${list(
          sql`${object}('id', r.id, 'value', r.value, 'user_id', r.user_id, 'criterium_id', r.criterium_id, 'card_id', r.card_id)`,
          'r.created_at, r.id',
          sql`ratings r where r.workshop_id = workshops.id and (cast(${ratingsOf} as text) = 'all' or r.user_id = cast(${ratingsOf} as text))
            and (cast(${allCards} as text) = '1' or exists (select 1 from cards k where k.id = r.card_id and ${inList(db, sql`k.user_id`, sql.placeholder('cardAuthors'))}))`,
        )}`,
        stepPrefs: sql<
          string | null
        >`(select ${asText(sql.raw('st.prefs'))} from steps st where st.id = workshops.current_step_id)`,
      })
      .from(workshops)
      .where(eq(workshops.id, sql.placeholder('workshopId'))),
    'workshops_details',
  );
});

const queries = preparedPerDb((db: Db) => {
  const { sections } = tablesOf(db);
  return {
    sections: named(
      db
        .select()
        .from(sections)
        .where(eq(sections.workshopId, sql.placeholder('workshopId')))
        .orderBy(asc(sections.position), asc(sections.id)),
      'workshops_sections',
    ),
  };
});

type OwnerRow = { id: string; name: string; avatar_url: string | null; plan_name: string };

function toOwner(
  config: Pick<Config, 'plans'>,
  workshop: Pick<WorkshopRow, 'ownerId'>,
  row: OwnerRow | null,
): OwnerOutput {
  // Owners are never deleted while they own workshops; the fallback only keeps output well-formed.
  if (!row) return { id: workshop.ownerId, name: '', avatar_url: null, plan: planFor(config, 'free') };
  return { id: row.id, name: row.name, avatar_url: row.avatar_url, plan: planFor(config, row.plan_name) };
}

async function detailsOf(
  db: Db,
  workshop: Pick<WorkshopRow, 'id'>,
  scope: RatingsScope,
  cardAuthors: CardAuthors = 'all',
) {
  const ratingsOf = scope === 'all' ? 'all' : scope === 'none' ? '' : scope.userId;
  const [found] = await details(db).execute({
    workshopId: workshop.id,
    ratingsOf,
    allCards: cardAuthors === 'all' ? '1' : '0',
    cardAuthors: JSON.stringify(cardAuthors === 'all' ? [] : [...cardAuthors]),
  });
  const row: DetailsRow = found
    ? { ...found, step_prefs: found.stepPrefs }
    : { owner: null, sections: '[]', criteria: '[]', ratings: '[]', step_prefs: null };
  const prefs: Partial<StepPrefs> = row.step_prefs ? (JSON.parse(row.step_prefs) as Partial<StepPrefs>) : {};
  return {
    cardsVisible: prefs.cards_visible ?? DEFAULT_PREFS.cards_visible,
    authors: prefs.authors ?? DEFAULT_PREFS.authors,
    owner: row.owner ? (JSON.parse(row.owner) as OwnerRow) : null,
    sections: JSON.parse(row.sections) as SectionOutput[],
    criteria: JSON.parse(row.criteria) as CriterionFields[],
    ratings: JSON.parse(row.ratings) as RatingOutput[],
  };
}

function groupByCriterion(ratings: RatingOutput[]): Map<string, RatingOutput[]> {
  const grouped = new Map<string, RatingOutput[]>();
  for (const rating of ratings) {
    const list = grouped.get(rating.criterium_id);
    if (list) list.push(rating);
    else grouped.set(rating.criterium_id, [rating]);
  }
  return grouped;
}

/** The owner as the spec shows it: the organization, or the personal owner seen as one. */
export async function ownerOf(
  db: Db,
  config: Pick<Config, 'plans'>,
  workshop: Pick<WorkshopRow, 'id' | 'ownerType' | 'ownerId'>,
): Promise<OwnerOutput> {
  return toOwner(config, workshop, (await detailsOf(db, workshop, 'none')).owner);
}

/**
 * A workshop's criteria in order, each with the ratings `scope` allows on the cards `cardAuthors`
 * lets the reader see: the criteria of the workshop's answer (`detailsOf`), one statement.
 */
export async function criteriaOf(
  db: Db,
  workshopId: string,
  scope: RatingsScope,
  cardAuthors: CardAuthors = 'all',
): Promise<CriterionOutput[]> {
  const details = await detailsOf(db, { id: workshopId }, scope, cardAuthors);
  const ratings = groupByCriterion(details.ratings);
  return details.criteria.map((row) => toCriterion(row, ratings.get(row.id) ?? []));
}

/** A workshop's sections in order. */
export async function sectionsOf(db: Db, workshopId: string): Promise<SectionOutput[]> {
  return (await queries(db).sections.execute({ workshopId })).map(toSection);
}

/** Whose ratings a member sees: participants whose current step hides ratings see only their own. */
export function ratingsScopeFor(access: WorkshopAccess): RatingsScope {
  return seesAllRatings(access) ? 'all' : { userId: access.userId };
}

/**
 * Serializes a workshop with its sections, criteria and the ratings `scope` allows, on the cards
 * `cardAuthors` lets the reader see.
 */
export async function toWorkshop(
  db: Db,
  config: Pick<Config, 'plans' | 'publicUrl'>,
  workshop: WorkshopRow,
  scope: RatingsScope,
  cardAuthors: CardAuthors = 'all',
): Promise<WorkshopOutput> {
  const details = await detailsOf(db, workshop, scope, cardAuthors);
  const ratings = groupByCriterion(details.ratings);
  return {
    id: workshop.id,
    created_at: workshop.createdAt,
    updated_at: workshop.updatedAt,
    title: workshop.title,
    description: workshop.description,
    state: workshop.state,
    owner: toOwner(config, workshop, details.owner),
    current_step_id: workshop.currentStepId,
    view: mergeView(DEFAULT_VIEW, workshop.view),
    sections: details.sections,
    criteria: details.criteria.map((row) => toCriterion(row, ratings.get(row.id) ?? [])),
    vote_limit: {
      positive: workshop.votePositive,
      negative: workshop.voteNegative,
      max_positive: workshop.voteMaxPositive,
      max_negative: workshop.voteMaxNegative,
    },
    daily_mail: workshop.dailyMail,
    change_step_notifications: workshop.changeStepNotifications,
    force_sync: workshop.forceSync,
    allow_guests: workshop.allowGuests,
    cards_visible: details.cardsVisible,
    authors: details.authors,
    public_url: workshopPublicUrl(config, workshop.id),
  };
}

/** The workshop as the caller may see it. */
export async function workshopFor(
  db: Db,
  config: Pick<Config, 'plans' | 'publicUrl'>,
  access: LoadedAccess,
): Promise<WorkshopOutput> {
  return toWorkshop(db, config, access.workshop, ratingsScopeFor(access), await visibleCardAuthors(db, access));
}

/** The workshop as recorded in the event log. */
export function workshopForEvent(
  db: Db,
  config: Pick<Config, 'plans' | 'publicUrl'>,
  workshop: WorkshopRow,
): Promise<WorkshopOutput> {
  return toWorkshop(db, config, workshop, 'none');
}
