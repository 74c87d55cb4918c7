import { and, asc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/client';
import { newId, nowIso } from '../../db/columns';
import { arrange } from '../../db/positions';
import { criteria, ratings } from '../../db/schema/index';
import { notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { diffFields, write } from '../events/recorder';
import { toRating } from '../ratings/schemas';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { criteriaOf, ratingsScopeFor, type RatingsScope } from '../workshops/output';
import { unhookViewReferences } from '../workshops/view-references';
import { toCriterion, type CriterionOutput, type CriterionRow } from './schemas';

function findCriterion(db: Db, workshopId: string, id: string): CriterionRow {
  const row = db.select().from(criteria).where(and(eq(criteria.id, id), eq(criteria.workshopId, workshopId))).get();
  if (!row) throw notFound('Criterion');
  return row;
}

function withRatings(db: Db, row: CriterionRow, scope: RatingsScope): CriterionOutput {
  if (scope === 'none') return toCriterion(row, []);
  const conditions = [eq(ratings.criteriumId, row.id)];
  if (scope !== 'all') conditions.push(eq(ratings.userId, scope.userId));
  const rows = db.select().from(ratings).where(and(...conditions)).orderBy(asc(ratings.createdAt), asc(ratings.id)).all();
  return toCriterion(row, rows.map(toRating));
}

export function listCriteria(deps: AppDeps, user: UserRow, workshopId: string): CriterionOutput[] {
  const { db } = deps.database;
  const access = loadAccess(db, workshopId, user.id);
  return criteriaOf(db, workshopId, ratingsScopeFor(access));
}

export function getCriterion(deps: AppDeps, user: UserRow, workshopId: string, id: string): CriterionOutput {
  const { db } = deps.database;
  const access = loadAccess(db, workshopId, user.id);
  return withRatings(db, findCriterion(db, workshopId, id), ratingsScopeFor(access));
}

export function createCriterion(deps: AppDeps, user: UserRow, workshopId: string, input: { title: string; scale: number }): CriterionOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const id = newId();
    const position = arrange(tx, criteria, eq(criteria.workshopId, workshopId), { insert: { id } });
    const row = tx.insert(criteria).values({ id, workshopId, title: input.title, scale: input.scale, position }).returning().get();
    const criterium = toCriterion(row, []);
    changes.record({ workshopId, action: 'addCriterium', userId: user.id, change: { criterium } });
    return criterium;
  });
}

export function updateCriterion(deps: AppDeps, user: UserRow, workshopId: string, id: string, input: { title?: string | undefined }): CriterionOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const before = findCriterion(db, workshopId, id);
    if (input.title === undefined || input.title === before.title) return withRatings(db, before, 'all');
    const after = tx.update(criteria).set({ title: input.title, updatedAt: nowIso() }).where(eq(criteria.id, id)).returning().get();
    const [old, criterium] = [toCriterion(before, []), toCriterion(after, [])];
    changes.record({ workshopId, action: 'updateCriterium', userId: user.id, change: { criterium, changes: diffFields(old, criterium, ['title']) } });
    return withRatings(db, after, 'all');
  });
}

/** Deleting a criterion deletes its ratings (foreign key) and unhooks the views that sorted by it. */
export function deleteCriterion(deps: AppDeps, user: UserRow, workshopId: string, id: string): void {
  const { db } = deps.database;
  write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const before = findCriterion(db, workshopId, id);
    arrange(tx, criteria, eq(criteria.workshopId, workshopId), { remove: id });
    tx.delete(criteria).where(eq(criteria.id, id)).run();
    changes.record({ workshopId, action: 'removeCriterium', userId: user.id, change: { criterium: toCriterion(before, []) } });
    unhookViewReferences(deps, tx, changes, { workshopId, userId: user.id }, { criterionId: id });
  });
}

