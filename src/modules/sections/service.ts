import { and, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import { tablesOf, type Db } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { arrange } from '../../db/positions';
import { notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { sectionsOf } from '../workshops/output';
import { toSection, type SectionRow } from './schemas';
import type { SectionOutput } from '../../domain/sections';

async function findSection(db: Db, workshopId: string, id: string): Promise<SectionRow> {
  const { sections } = tablesOf(db);
  const [row] = await db
    .select()
    .from(sections)
    .where(and(eq(sections.id, id), eq(sections.workshopId, workshopId)));
  if (!row) throw notFound('Section');
  return row;
}

export async function listSections(deps: AppDeps, user: UserRow, workshopId: string): Promise<SectionOutput[]> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, user.id);
  return sectionsOf(db, workshopId);
}

export async function getSection(deps: AppDeps, user: UserRow, workshopId: string, id: string): Promise<SectionOutput> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, user.id);
  return toSection(await findSection(db, workshopId, id));
}

export function createSection(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  input: { title: string },
): Promise<SectionOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const { sections } = tablesOf(tx);
    authorize(await loadAccess(tx, workshopId, user.id), 'facilitate');
    const id = newId();
    const position = await arrange(tx, sections, eq(sections.workshopId, workshopId), { insert: { id } });
    const [row] = await tx.insert(sections).values({ id, workshopId, title: input.title, position }).returning();
    const section = toSection(row!);
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
    const { sections } = tablesOf(tx);
    authorize(await loadAccess(tx, workshopId, user.id), 'facilitate');
    const before = toSection(await findSection(tx, workshopId, id));
    if (input.title === undefined || input.title === before.title) return before;
    const [row] = await tx
      .update(sections)
      .set({ title: input.title, updatedAt: nowIso() })
      .where(eq(sections.id, id))
      .returning();
    const section = toSection(row!);
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
    const { sections } = tablesOf(tx);
    authorize(await loadAccess(tx, workshopId, user.id), 'facilitate');
    const before = toSection(await findSection(tx, workshopId, id));
    await arrange(tx, sections, eq(sections.workshopId, workshopId), { remove: id });
    await tx.delete(sections).where(eq(sections.id, id));
    changes.record({ workshopId, action: 'removeSection', userId: user.id, change: { section: before } });
  });
}
