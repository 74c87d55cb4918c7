import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { newId } from '../../db/columns';
import { notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { criteriaOf, ratingsScopeFor, type RatingsScope } from '../workshops/output';
import { visibleCardAuthors, type CardAuthors } from '../access/visibility';
import { unhookViewReferences } from '../workshops/view-references';
import { arrangeCriteria, criterionRowOf, deleteCriterionRow, insertCriterion, renameCriterion } from './repo';
import type { CriterionRow } from './schemas';
import { toCriterion } from '../../domain/criteria';
import { type CriterionOutput } from '../../domain/criteria';

async function findCriterion(db: Db, workshopId: string, id: string): Promise<CriterionRow> {
  const row = await criterionRowOf(db, workshopId, id);
  if (!row) throw notFound('criterion');
  return row;
}

/** One criterion with the ratings the caller may see, as the list gives it (404 for another workshop's). */
async function criterionOf(
  db: Db,
  workshopId: string,
  id: string,
  scope: RatingsScope,
  cardAuthors: CardAuthors = 'all',
): Promise<CriterionOutput> {
  const criterion = (await criteriaOf(db, workshopId, scope, cardAuthors)).find((c) => c.id === id);
  if (!criterion) throw notFound('criterion');
  return criterion;
}

export async function listCriteria(deps: AppDeps, user: UserRow, workshopId: string): Promise<CriterionOutput[]> {
  const { db } = deps.database;
  const access = await loadAccess(db, workshopId, user);
  return criteriaOf(db, workshopId, ratingsScopeFor(access), await visibleCardAuthors(db, access));
}

export async function getCriterion(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  id: string,
): Promise<CriterionOutput> {
  const { db } = deps.database;
  const access = await loadAccess(db, workshopId, user);
  return criterionOf(db, workshopId, id, ratingsScopeFor(access), await visibleCardAuthors(db, access));
}

export function createCriterion(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  input: { title: string; scale: number },
): Promise<CriterionOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const id = newId();
    const position = await arrangeCriteria(tx, workshopId, { insert: { id } });
    const row = await insertCriterion(tx, { id, workshopId, title: input.title, scale: input.scale, position });
    const criterium = toCriterion(row, []);
    changes.record({ workshopId, action: 'addCriterium', userId: user.id, change: { criterium } });
    return criterium;
  });
}

export function updateCriterion(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  id: string,
  input: { title?: string | undefined },
): Promise<CriterionOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const before = await findCriterion(tx, workshopId, id);
    if (input.title === undefined || input.title === before.title) return criterionOf(tx, workshopId, id, 'all');
    const after = await renameCriterion(tx, id, input.title);
    const [old, criterium] = [toCriterion(before, []), toCriterion(after, [])];
    changes.record({
      workshopId,
      action: 'updateCriterium',
      userId: user.id,
      change: { criterium, changes: diffFields(old, criterium, ['title']) },
    });
    return criterionOf(tx, workshopId, id, 'all');
  });
}

/** Deleting a criterion deletes its ratings (foreign key) and unhooks the views that sorted by it. */
export async function deleteCriterion(deps: AppDeps, user: UserRow, workshopId: string, id: string): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const before = await findCriterion(tx, workshopId, id);
    await arrangeCriteria(tx, workshopId, { remove: id });
    await deleteCriterionRow(tx, id);
    changes.record({
      workshopId,
      action: 'removeCriterium',
      userId: user.id,
      change: { criterium: toCriterion(before, []) },
    });
    await unhookViewReferences(deps, tx, changes, { workshopId, caller: user }, { criterionId: id });
  });
}
