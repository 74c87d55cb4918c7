import type { Config } from '../../config';
import type { Db } from '../../db/database';
import { sqlBoolean } from '../../db/sql';
import { toCriterion, type CriterionFields, type CriterionOutput } from '../../domain/criteria';
import type { RatingOutput } from '../../domain/ratings';
import { toSection, type SectionOutput } from '../../domain/sections';
import { planFor } from '../users/schemas';
import { seesAllRatings } from '../access/rules';
import { DEFAULT_PREFS, type StepPrefs, type WorkshopAccess } from '../../domain/permissions';
import { visibleCardAuthors, type CardAuthors } from '../access/visibility';
import type { LoadedAccess, WorkshopRow } from '../access/load';
import { workshopPublicUrl, type OwnerOutput, type WorkshopOutput } from '../../domain/workshops';
import { DEFAULT_VIEW, mergeView } from '../../domain/view';
import { detailsRow, sectionRowsInOrder } from './details-repo';

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
  has_canvas: boolean;
}

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
  const found = await detailsRow(db, workshop.id, ratingsOf, cardAuthors);
  const row: DetailsRow = found
    ? { ...found, step_prefs: found.stepPrefs, has_canvas: sqlBoolean(found.hasCanvas) }
    : { owner: null, sections: '[]', criteria: '[]', ratings: '[]', step_prefs: null, has_canvas: false };
  const prefs: Partial<StepPrefs> = row.step_prefs ? (JSON.parse(row.step_prefs) as Partial<StepPrefs>) : {};
  return {
    cardsVisible: prefs.cards_visible ?? DEFAULT_PREFS.cards_visible,
    authors: prefs.authors ?? DEFAULT_PREFS.authors,
    owner: row.owner ? (JSON.parse(row.owner) as OwnerRow) : null,
    sections: JSON.parse(row.sections) as SectionOutput[],
    criteria: JSON.parse(row.criteria) as CriterionFields[],
    ratings: JSON.parse(row.ratings) as RatingOutput[],
    hasCanvas: row.has_canvas,
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
  return (await sectionRowsInOrder(db, workshopId)).map(toSection);
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
    language: workshop.language,
    cards_visible: details.cardsVisible,
    authors: details.authors,
    has_canvas: details.hasCanvas,
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
