import { and, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/client';
import { newId, nowIso } from '../../db/columns';
import { arrange } from '../../db/positions';
import { sections } from '../../db/schema/index';
import { notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { diffFields, write } from '../events/recorder';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { sectionsOf } from '../workshops/output';
import { toSection, type SectionOutput, type SectionRow } from './schemas';

function findSection(db: Db, workshopId: string, id: string): SectionRow {
  const row = db.select().from(sections).where(and(eq(sections.id, id), eq(sections.workshopId, workshopId))).get();
  if (!row) throw notFound('Section');
  return row;
}

export function listSections(deps: AppDeps, user: UserRow, workshopId: string): SectionOutput[] {
  const { db } = deps.database;
  loadAccess(db, workshopId, user.id);
  return sectionsOf(db, workshopId);
}

export function getSection(deps: AppDeps, user: UserRow, workshopId: string, id: string): SectionOutput {
  const { db } = deps.database;
  loadAccess(db, workshopId, user.id);
  return toSection(findSection(db, workshopId, id));
}

export function createSection(deps: AppDeps, user: UserRow, workshopId: string, input: { title: string }): SectionOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const id = newId();
    const position = arrange(tx, sections, eq(sections.workshopId, workshopId), { insert: { id } });
    const section = toSection(tx.insert(sections).values({ id, workshopId, title: input.title, position }).returning().get());
    changes.record({ workshopId, action: 'addSection', userId: user.id, change: { section } });
    return section;
  });
}

export function updateSection(deps: AppDeps, user: UserRow, workshopId: string, id: string, input: { title?: string | undefined }): SectionOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const before = toSection(findSection(db, workshopId, id));
    if (input.title === undefined || input.title === before.title) return before;
    const section = toSection(tx.update(sections).set({ title: input.title, updatedAt: nowIso() }).where(eq(sections.id, id)).returning().get());
    changes.record({ workshopId, action: 'updateSection', userId: user.id, change: { section, changes: diffFields(before, section, ['title']) } });
    return section;
  });
}

/** Deleting a section deletes the items filed under it (foreign key). */
export function deleteSection(deps: AppDeps, user: UserRow, workshopId: string, id: string): void {
  const { db } = deps.database;
  write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const before = toSection(findSection(db, workshopId, id));
    arrange(tx, sections, eq(sections.workshopId, workshopId), { remove: id });
    tx.delete(sections).where(eq(sections.id, id)).run();
    changes.record({ workshopId, action: 'removeSection', userId: user.id, change: { section: before } });
  });
}
