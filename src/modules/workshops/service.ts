import { and, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/client';
import { nowIso } from '../../db/columns';
import { steps, workshops } from '../../db/schema/index';
import { identityEpoch } from '../../db/identity-epoch';
import { bodyCache } from '../../http/body-cache';
import { invalid } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { diffFields, write, type ChangeRecorder } from '../events/recorder';
import { toStep, type StepRow } from '../steps/schemas';
import { authorize } from '../access/rules';
import { loadAccess, type WorkshopRow } from '../access/load';
import { announceCreated, copyWorkshop, createFromTemplate } from './create-from';
import type { NativeImports } from './create-from-native';
import { dropWorkshopExports } from '../exports/service';
import { removeBlob } from '../uploads/storage';
import { ratingsScopeFor, toWorkshop, workshopFor, workshopForEvent, workshopPublicUrl } from './output';
import { loadOrganizationAccess } from '../organizations/access';
import { accessCodeCollides, assertViewReferences, insertWorkshop, listVisibleWorkshops, membersOf, newAccessCode, type NewWorkshop } from './repo';
import type { CreateWorkshopInput, CustomWorkshopInput, ListWorkshopsQuery, UpdateWorkshopInput, WorkshopOutput } from './schemas';
import { assertSortable, DEFAULT_VIEW, mergeView } from './view';

function customWorkshop(input: Omit<CustomWorkshopInput, 'title'> & { title: string }, owner: NewWorkshop['owner'], creatorId: string): NewWorkshop {
  return {
    owner,
    creatorId,
    title: input.title,
    description: input.description,
    dailyMail: input.daily_mail,
    changeStepNotifications: input.change_step_notifications,
    forceSync: input.force_sync,
    view: mergeView(DEFAULT_VIEW, input.view),
  };
}

/**
 * POST /v1/workshops: the body's members choose the mode (copy, template, native file, custom).
 * Only a native file's fetch is asynchronous.
 */
export function createWorkshop(deps: AppDeps, user: UserRow, input: CreateWorkshopInput, imports: NativeImports): WorkshopOutput | Promise<WorkshopOutput> {
  if (input.workshop_id !== undefined) return copyWorkshop(deps, user, input.workshop_id, input.title);
  if (input.template !== undefined) return createFromTemplate(deps, user, input.template, input);
  if (input.url !== undefined) return imports.create(deps, user, input.url, input.title);
  const title = input.title;
  if (title === undefined) throw invalid('title', 'A custom workshop needs a title.');
  // A new workshop has no cards or criteria for its view to name.
  assertViewReferences(deps.database.db, '', input.view);
  const values = customWorkshop({ ...input, title }, { type: 'user', id: user.id }, user.id);
  assertSortable(mergeView(DEFAULT_VIEW, input.view), input.view);
  return write(deps, (tx, changes) => {
    const workshop = insertWorkshop(tx, values);
    return announceCreated(deps, changes, workshop.id, user.id);
  });
}

/** POST /v1/organizations/:id/workshops: any member of the organization may create its workshops. */
export function createOrganizationWorkshop(deps: AppDeps, user: UserRow, organizationId: string, input: CustomWorkshopInput): WorkshopOutput {
  return write(deps, (tx, changes) => {
    // Any member, facilitator or admin, may create the organization's workshops; strangers get 404.
    loadOrganizationAccess(tx, organizationId, user.id);
    assertViewReferences(tx, '', input.view);
    const values = customWorkshop(input, { type: 'organization', id: organizationId }, user.id);
    assertSortable(mergeView(DEFAULT_VIEW, input.view), input.view);
    const workshop = insertWorkshop(tx, values);
    return announceCreated(deps, changes, workshop.id, user.id);
  });
}

/**
 * GET /v1/workshops/:id as JSON bytes, from the body cache while nothing it shows has changed: the
 * workshop's logged changes (its event seq), its row, and its owner (the identity epoch). Readers
 * whose step hides others' ratings have answers of their own.
 */
export function getWorkshopBody(deps: AppDeps, user: UserRow, workshopId: string): Uint8Array<ArrayBuffer> {
  const { db } = deps.database;
  const access = loadAccess(db, workshopId, user.id);
  const scope = ratingsScopeFor(access);
  const key = `workshop\u0000${access.workshop.id}\u0000${typeof scope === 'object' ? scope.userId : ''}`;
  const version = `${access.workshop.lastEventSeq}:${access.workshop.updatedAt}:${identityEpoch(db)()}`;
  return bodyCache(db).body(key, version, () => workshopFor(db, deps.config, access));
}

export function listWorkshops(deps: AppDeps, user: UserRow, filters: ListWorkshopsQuery): WorkshopOutput[] {
  const { db } = deps.database;
  return listVisibleWorkshops(db, user.id, filters).map((row) => workshopFor(db, deps.config, loadAccess(db, row.id, user.id)));
}

/** The settings an update can change, named as in the output, so `changes` reads like the resource. */
function settingsOf(row: WorkshopRow) {
  return {
    title: row.title,
    description: row.description,
    state: row.state,
    vote_limit: { positive: row.votePositive, negative: row.voteNegative, max_positive: row.voteMaxPositive, max_negative: row.voteMaxNegative },
    daily_mail: row.dailyMail,
    change_step_notifications: row.changeStepNotifications,
    force_sync: row.forceSync,
    view: mergeView(DEFAULT_VIEW, row.view),
  };
}
const SETTINGS = ['title', 'description', 'state', 'vote_limit', 'daily_mail', 'change_step_notifications', 'force_sync', 'view'] as const;

function applySettings(row: WorkshopRow, input: UpdateWorkshopInput): WorkshopRow {
  const limit = input.vote_limit ?? {};
  return {
    ...row,
    title: input.title ?? row.title,
    description: input.description ?? row.description,
    state: input.state ?? row.state,
    votePositive: limit.positive ?? row.votePositive,
    voteNegative: limit.negative ?? row.voteNegative,
    voteMaxPositive: limit.max_positive ?? row.voteMaxPositive,
    voteMaxNegative: limit.max_negative ?? row.voteMaxNegative,
    dailyMail: input.daily_mail ?? row.dailyMail,
    changeStepNotifications: input.change_step_notifications ?? row.changeStepNotifications,
    forceSync: input.force_sync ?? row.forceSync,
    view: mergeView(mergeView(DEFAULT_VIEW, row.view), input.view),
  };
}

function stepOf(db: Db, workshopId: string, stepId: string): StepRow {
  const step = db.select().from(steps).where(and(eq(steps.id, stepId), eq(steps.workshopId, workshopId))).get();
  if (!step) throw invalid('current_step_id', 'Not a step of this workshop.');
  return step;
}

/**
 * PUT /v1/workshops/:id. Changing the current step copies that step's view into the workshop's
 * (explicit `view.*` members of the same request still win), logs `changeStep` and notifies the
 * other members; any other change logs `updateWorkshop`.
 */
export function updateWorkshop(deps: AppDeps, user: UserRow, workshopId: string, input: UpdateWorkshopInput): WorkshopOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    const access = loadAccess(db, workshopId, user.id);
    const before = access.workshop;
    authorize(access, 'facilitate', { allowArchived: before.state === 'archived' && input.state === 'running' });
    assertViewReferences(tx, workshopId, input.view);

    const patched = applySettings(before, input);
    const settingsChanged = diffFields(settingsOf(before), settingsOf(patched), SETTINGS);
    const stepChanged = input.current_step_id !== undefined && input.current_step_id !== before.currentStepId;
    const step = stepChanged && input.current_step_id ? stepOf(db, workshopId, input.current_step_id) : null;
    if (Object.keys(settingsChanged).length === 0 && !stepChanged) return toWorkshop(db, deps.config, before, 'all');

    const after: WorkshopRow = {
      ...patched,
      currentStepId: stepChanged ? (input.current_step_id ?? null) : before.currentStepId,
      view: step ? mergeView(mergeView(DEFAULT_VIEW, step.view), input.view) : patched.view,
      accessCode: before.state === 'archived' && patched.state === 'running' && accessCodeCollides(tx, before) ? newAccessCode(tx) : before.accessCode,
      updatedAt: nowIso(),
    };
    assertSortable(after.view, input.view);
    tx.update(workshops)
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
        view: after.view,
        currentStepId: after.currentStepId,
        accessCode: after.accessCode,
        updatedAt: after.updatedAt,
      })
      .where(eq(workshops.id, workshopId))
      .run();

    const recorded = workshopForEvent(db, deps.config, after);
    if (Object.keys(settingsChanged).length > 0) {
      changes.record({ workshopId, action: 'updateWorkshop', userId: user.id, change: { workshop: recorded, changes: settingsChanged } });
    }
    if (stepChanged) {
      changes.record({ workshopId, action: 'changeStep', userId: user.id, change: { workshop: recorded, step: step ? toStep(step) : null } });
      if (step && after.changeStepNotifications) notifyStepChange(deps, changes, after, step, user);
    }
    return toWorkshop(db, deps.config, after, 'all');
  });
}

function notifyStepChange(deps: AppDeps, changes: ChangeRecorder, workshop: WorkshopRow, step: StepRow, actor: UserRow) {
  const recipients = membersOf(deps.database.db, workshop.id).map((m) => m.userId).filter((id) => id !== actor.id);
  changes.notify(recipients, 'changeStep', {
    workshop: { id: workshop.id, title: workshop.title, public_url: workshopPublicUrl(deps.config, workshop.id) },
    step: { id: step.id, name: step.name, instructions: step.instructions },
    from: { id: actor.id, name: actor.name, avatar_url: actor.avatarUrl },
  });
}

/** DELETE /v1/workshops/:id: everything in the workshop goes with it (foreign keys cascade). */
export function deleteWorkshop(deps: AppDeps, user: UserRow, workshopId: string): void {
  const { db } = deps.database;
  write(deps, (tx, changes) => {
    const access = loadAccess(db, workshopId, user.id);
    authorize(access, 'facilitate');
    const recorded = workshopForEvent(db, deps.config, access.workshop);
    const exportFiles = dropWorkshopExports(tx, workshopId);
    tx.delete(workshops).where(eq(workshops.id, workshopId)).run();
    changes.afterCommit(() => exportFiles.forEach((file) => removeBlob(deps.config, file)));
    // Recorded after the delete: there is no log left to write to, but listeners still hear of it.
    changes.record({ workshopId, action: 'removeWorkshop', userId: user.id, change: { workshop: recorded } });
    changes.afterCommit(() => deps.collab.forgetWorkshop(workshopId));
  });
}
