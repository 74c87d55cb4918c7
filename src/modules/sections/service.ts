import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { newId } from '../../db/columns';
import { notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { sectionsOf } from '../workshops/output';
import { arrangeSections, deleteSectionRow, insertSection, renameSection, sectionOf } from './repo';
import type { SectionRow } from './schemas';
import { toSection } from '../../domain/sections';
import { type SectionOutput } from '../../domain/sections';

async function findSection(db: Db, workshopId: string, id: string): Promise<SectionRow> {
  const row = await sectionOf(db, workshopId, id);
  if (!row) throw notFound('section');
  return row;
}

export async function listSections(deps: AppDeps, user: UserRow, workshopId: string): Promise<SectionOutput[]> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, user);
  return sectionsOf(db, workshopId);
}

export async function getSection(deps: AppDeps, user: UserRow, workshopId: string, id: string): Promise<SectionOutput> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, user);
  return toSection(await findSection(db, workshopId, id));
}

export function createSection(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  input: { title: string },
): Promise<SectionOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const id = newId();
    const position = await arrangeSections(tx, workshopId, { insert: { id } });
    const section = toSection(await insertSection(tx, { id, workshopId, title: input.title, position }));
    changes.record({ workshopId, action: 'addSection', userId: user.id, change: { section } });
    return section;
  });
}

export function updateSection(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  id: string,
  input: { title?: string | undefined },
): Promise<SectionOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const before = toSection(await findSection(tx, workshopId, id));
    if (input.title === undefined || input.title === before.title) return before;
    const section = toSection(await renameSection(tx, id, input.title));
    changes.record({
      workshopId,
      action: 'updateSection',
      userId: user.id,
      change: { section, changes: diffFields(before, section, ['title']) },
    });
    return section;
  });
}

/** Deleting a section deletes the items filed under it (foreign key). */
export async function deleteSection(deps: AppDeps, user: UserRow, workshopId: string, id: string): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const before = toSection(await findSection(tx, workshopId, id));
    await arrangeSections(tx, workshopId, { remove: id });
    await deleteSectionRow(tx, id);
    changes.record({ workshopId, action: 'removeSection', userId: user.id, change: { section: before } });
  });
}
