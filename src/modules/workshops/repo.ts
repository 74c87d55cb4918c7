import crypto from 'node:crypto';
import { and, count, desc, eq, gte, inArray, isNotNull, lte, or, sql, type SQL } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import { isUniqueViolation } from '../../db/errors';
import { execute, inList } from '../../db/sql';
import { invalid } from '../../http/errors';
import type { WorkshopRow } from '../access/load';
import type { ListWorkshopsQuery } from './schemas';
import { DEFAULT_VIEW, type View, type ViewInput } from '../../domain/view';
import { ACCESS_CODE_DIGITS } from '../../domain/access-codes';
import { msg } from '../../i18n/messages';

export type WorkshopInsert = Schema['workshops']['$inferInsert'];
export type MemberRow = Schema['workshopMembers']['$inferSelect'];
export type StepRow = Schema['steps']['$inferSelect'];

async function accessCodeTaken(db: Db, code: string): Promise<boolean> {
  const { workshops } = tablesOf(db);
  return (
    (
      await db
        .select({ id: workshops.id })
        .from(workshops)
        .where(and(eq(workshops.accessCode, code), eq(workshops.state, 'running')))
    ).length > 0
  );
}

/**
 * Random digits no running workshop holds now. Another transaction's uncommitted code is not seen
 * here: `insertWorkshop` and `reopenWorkshop` let the unique index of running codes decide.
 */
async function newAccessCode(db: Db): Promise<string> {
  for (;;) {
    // Through the module's object, which a test may spy on (test/store-rules.test.ts).
    const code = String(crypto.randomInt(0, 10 ** ACCESS_CODE_DIGITS)).padStart(ACCESS_CODE_DIGITS, '0');
    if (!(await accessCodeTaken(db, code))) return code;
  }
}

/**
 * Sets an archived workshop running again, under its code unless a running workshop holds that
 * code by now (codes are unique among running workshops only), else under a fresh one: the code.
 */
export async function reopenWorkshop(tx: Db, workshop: WorkshopRow): Promise<string> {
  const { workshops } = tablesOf(tx);
  let code = workshop.accessCode;
  // The unique index on running workshops' codes is the check: a code another workshop runs under
  // (or, on PostgreSQL, is being given by another instance right now) is refused, and a savepoint
  // keeps the transaction going for another draw.
  while (
    !(await unlessDuplicate(tx, () =>
      tx.update(workshops).set({ state: 'running', accessCode: code }).where(eq(workshops.id, workshop.id)),
    ))
  ) {
    code = await newAccessCode(tx);
  }
  return code;
}

/** Runs `statement` under a savepoint: false, with the transaction still usable, when a unique index refused it. */
async function unlessDuplicate(tx: Db, statement: () => Promise<unknown>): Promise<boolean> {
  await execute(tx, sql`savepoint unless_duplicate`);
  try {
    await statement();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await execute(tx, sql`rollback to savepoint unless_duplicate`);
    return false;
  }
  await execute(tx, sql`release savepoint unless_duplicate`);
  return true;
}

export interface NewWorkshop {
  owner: { type: 'user' | 'organization'; id: string };
  creatorId: string;
  title: string;
  description?: string | undefined;
  dailyMail?: boolean | undefined;
  changeStepNotifications?: boolean | undefined;
  forceSync?: boolean | undefined;
  allowGuests?: boolean | undefined;
  /** Its language (docs/api.md#languages-and-time-zones): the creator's locale unless the caller says. */
  language: string;
  view?: View | undefined;
  extra?: Partial<WorkshopInsert>;
}

/** Inserts a running workshop with a fresh access code; its creator becomes a facilitator. */
export async function insertWorkshop(tx: Db, input: NewWorkshop): Promise<WorkshopRow> {
  const { workshopMembers, workshops } = tablesOf(tx);
  const now = nowIso();
  let workshop: WorkshopRow | undefined;
  // Drawn again while the unique index refuses the code (see `reopenWorkshop`).
  while (!workshop) {
    const accessCode = await newAccessCode(tx);
    await unlessDuplicate(tx, async () => {
      [workshop] = await tx
        .insert(workshops)
        .values({
          id: newId(),
          ownerType: input.owner.type,
          ownerId: input.owner.id,
          createdBy: input.creatorId,
          title: input.title,
          description: input.description ?? '',
          view: input.view ?? { ...DEFAULT_VIEW },
          dailyMail: input.dailyMail ?? true,
          changeStepNotifications: input.changeStepNotifications ?? true,
          forceSync: input.forceSync ?? false,
          allowGuests: input.allowGuests ?? true,
          language: input.language,
          ...input.extra,
          state: 'running',
          accessCode,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
    });
  }
  await tx
    .insert(workshopMembers)
    .values({ workshopId: workshop.id, userId: input.creatorId, role: 'facilitator', createdAt: now });
  return workshop;
}

export async function findWorkshop(db: Db, id: string): Promise<WorkshopRow | undefined> {
  const { workshops } = tablesOf(db);
  const [row] = await db.select().from(workshops).where(eq(workshops.id, id));
  return row;
}

/** The workshop's step with this id, if it has one: the step an update makes current. */
export async function stepOfWorkshop(db: Db, workshopId: string, stepId: string): Promise<StepRow | undefined> {
  const { steps } = tablesOf(db);
  const [row] = await db
    .select()
    .from(steps)
    .where(and(eq(steps.id, stepId), eq(steps.workshopId, workshopId)));
  return row;
}

/** The ids of the workshop's steps that have an illustration: each step's `has_illustration`. */
export async function illustratedStepIds(db: Db, workshopId: string): Promise<Set<string>> {
  const { steps, stepIllustrations } = tablesOf(db);
  const rows = await db
    .select({ stepId: stepIllustrations.stepId })
    .from(steps)
    .innerJoin(stepIllustrations, eq(stepIllustrations.stepId, steps.id))
    .where(eq(steps.workshopId, workshopId));
  return new Set(rows.map((row) => row.stepId));
}

/** Whether one step has an illustration. */
export async function stepHasIllustration(db: Db, stepId: string): Promise<boolean> {
  const { stepIllustrations } = tablesOf(db);
  const [row] = await db
    .select({ stepId: stepIllustrations.stepId })
    .from(stepIllustrations)
    .where(eq(stepIllustrations.stepId, stepId));
  return row !== undefined;
}

export async function findRunningByCode(db: Db, code: string): Promise<WorkshopRow | undefined> {
  const { workshops } = tablesOf(db);
  const [row] = await db
    .select()
    .from(workshops)
    .where(and(eq(workshops.accessCode, code), eq(workshops.state, 'running')));
  return row;
}

/**
 * The workshops a user sees in their list: those they are a member of, and those of organizations
 * they administer (where they act as facilitators). Newest first.
 */
export async function listVisibleWorkshops(
  db: Db,
  userId: string,
  filters: ListWorkshopsQuery,
): Promise<WorkshopRow[]> {
  const { organizationMembers, workshopMembers, workshops } = tablesOf(db);
  const administered = and(
    eq(workshops.ownerType, 'organization'),
    inArray(
      workshops.ownerId,
      db
        .select({ id: organizationMembers.organizationId })
        .from(organizationMembers)
        .where(and(eq(organizationMembers.userId, userId), eq(organizationMembers.role, 'admin'))),
    ),
  )!;
  const conditions: SQL[] = [or(isNotNull(workshopMembers.id), administered)!];
  if (filters.role === 'facilitator') conditions.push(or(eq(workshopMembers.role, 'facilitator'), administered)!);
  if (filters.role === 'attendee')
    conditions.push(and(eq(workshopMembers.role, 'participant'), sql`not ${administered}`)!);
  if (filters.owner) conditions.push(eq(workshops.ownerId, filters.owner));
  if (filters.state) conditions.push(eq(workshops.state, filters.state));
  if (filters.since) conditions.push(gte(workshops.createdAt, filters.since));
  if (filters.until) conditions.push(lte(workshops.createdAt, filters.until));
  const rows = await db
    .select({ workshop: workshops })
    .from(workshops)
    .leftJoin(workshopMembers, and(eq(workshopMembers.workshopId, workshops.id), eq(workshopMembers.userId, userId)))
    .where(and(...conditions))
    .orderBy(desc(workshops.createdAt), desc(workshops.id));
  return rows.map((row) => row.workshop);
}

/**
 * The ids a view names must belong to the workshop: the shown card, the criterion it sorts by and
 * the clusters it shows. Throws the documented 400 naming the member (under `path`).
 */
export async function assertViewReferences(
  db: Db,
  workshopId: string,
  view: ViewInput | undefined,
  path = 'view',
): Promise<void> {
  if (!view) return;
  const { cards, criteria } = tablesOf(db);
  if (
    view.card &&
    (
      await db
        .select({ id: cards.id })
        .from(cards)
        .where(and(eq(cards.id, view.card), eq(cards.workshopId, workshopId)))
    ).length === 0
  ) {
    throw invalid(`${path}.card`, msg('error.cards.not_in_workshop'));
  }
  if (
    view.sort_criterium_id &&
    (
      await db
        .select({ id: criteria.id })
        .from(criteria)
        .where(and(eq(criteria.id, view.sort_criterium_id), eq(criteria.workshopId, workshopId)))
    ).length === 0
  ) {
    throw invalid(`${path}.sort_criterium_id`, msg('error.workshops.not_a_criterion'));
  }
  const clusterIds = [...new Set(view.show_cluster_ids ?? [])];
  if (clusterIds.length > 0) {
    const [row] = await db
      .select({ n: count() })
      .from(cards)
      .where(and(eq(cards.workshopId, workshopId), eq(cards.type, 'cluster'), inList(db, cards.id, clusterIds)));
    if (row!.n !== clusterIds.length) throw invalid(`${path}.show_cluster_ids`, msg('error.workshops.not_clusters'));
  }
}

/** Writes the workshop's settings, current step, view and access code as `after` has them. */
export async function updateWorkshopRow(tx: Db, workshopId: string, after: WorkshopRow): Promise<void> {
  const { workshops } = tablesOf(tx);
  await tx
    .update(workshops)
    .set({
      title: after.title,
      description: after.description,
      state: after.state,
      votePositive: after.votePositive,
      voteNegative: after.voteNegative,
      voteMaxPositive: after.voteMaxPositive,
      voteMaxNegative: after.voteMaxNegative,
      dailyMail: after.dailyMail,
      changeStepNotifications: after.changeStepNotifications,
      forceSync: after.forceSync,
      allowGuests: after.allowGuests,
      language: after.language,
      view: after.view,
      currentStepId: after.currentStepId,
      accessCode: after.accessCode,
      updatedAt: after.updatedAt,
    })
    .where(eq(workshops.id, workshopId));
}

/** Deletes the workshop; everything in it goes with it (foreign keys cascade). */
export async function deleteWorkshopRow(tx: Db, workshopId: string): Promise<void> {
  const { workshops } = tablesOf(tx);
  await tx.delete(workshops).where(eq(workshops.id, workshopId));
}

/** Deletes every row of `table` (one kind of feedback) in the workshop: how many were deleted. */
export async function deleteAllOfWorkshop(
  tx: Db,
  table: 'votes' | 'ratings' | 'items' | 'comments' | 'attachments',
  workshopId: string,
): Promise<number> {
  const rows = tablesOf(tx)[table];
  // Both stores answer the deleted rows' ids; their number is the count.
  const { length } = await tx.delete(rows).where(eq(rows.workshopId, workshopId)).returning({ id: rows.id });
  return length;
}
