import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { nowIso } from '../../db/columns';
import { bodyCache } from '../../http/body-cache';
import { invalid } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { toUserSummary } from '../users/schemas';
import { write, writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import type { ChangeRecorder } from '../../domain/recorder';
import { membersOf } from './members-repo';
import { toStep } from '../../domain/steps';
import { authorize } from '../access/rules';
import { DEFAULT_PREFS, ssoBars, type Caller } from '../../domain/permissions';
import { cardsVisibleMoved, writesPrivately } from '../access/visibility';
import { loadAccess, type WorkshopRow } from '../access/load';
import { announceCreated, copyWorkshop, createFromTemplate } from './create-from';
import type { NativeImports } from './create-from-native';
import { dropWorkshopExports, removeWorkshopExportFiles } from '../exports/service';
import type { FileRef } from '../uploads/storage';
import { ratingsScopeFor, toWorkshop, workshopFor, workshopForEvent } from './output';
import { loadOrganizationAccess } from '../organizations/access';
import { lockOrganization } from '../organizations/repo';
import {
  assertViewReferences,
  deleteWorkshopRow,
  insertWorkshop,
  listVisibleWorkshops,
  reopenWorkshop,
  stepOfWorkshop,
  updateWorkshopRow,
  type NewWorkshop,
  type StepRow,
  stepHasIllustration,
} from './repo';
import type {
  CreateWorkshopInput,
  CustomWorkshopInput,
  ListWorkshopsQuery,
  OrganizationWorkshopsQuery,
  UpdateWorkshopInput,
} from './schemas';
import { workshopPublicUrl, type WorkshopOutput } from '../../domain/workshops';
import { assertSortable } from './view';
import { applySettings, settingsOf, SETTINGS } from './settings';
import { DEFAULT_VIEW, mergeView } from '../../domain/view';
import { msg } from '../../i18n/messages';

function customWorkshop(
  input: Omit<CustomWorkshopInput, 'title'> & { title: string },
  owner: NewWorkshop['owner'],
  creator: Pick<UserRow, 'id' | 'locale'>,
): NewWorkshop {
  return {
    owner,
    creatorId: creator.id,
    language: input.language ?? creator.locale,
    title: input.title,
    description: input.description,
    dailyMail: input.daily_mail,
    changeStepNotifications: input.change_step_notifications,
    forceSync: input.force_sync,
    allowGuests: input.allow_guests,
    view: mergeView(DEFAULT_VIEW, input.view),
  };
}

/** POST /v1/workshops: the body's members choose the mode (copy, template, native file, custom). */
export async function createWorkshop(
  deps: AppDeps,
  user: UserRow,
  input: CreateWorkshopInput,
  imports: NativeImports,
): Promise<WorkshopOutput> {
  if (input.workshop_id !== undefined) return copyWorkshop(deps, user, input.workshop_id, input);
  if (input.template !== undefined) return createFromTemplate(deps, user, input.template, input);
  if (input.url !== undefined) return imports.create(deps, user, input.url, input);
  const title = input.title;
  if (title === undefined) throw invalid('title', msg('error.workshops.title_required'));
  // A new workshop has no cards or criteria for its view to name.
  await assertViewReferences(deps.database.db, '', input.view);
  const values = customWorkshop({ ...input, title }, { type: 'user', id: user.id }, user);
  assertSortable(mergeView(DEFAULT_VIEW, input.view), input.view);
  // A new workshop has no row to lock yet: a plain write.
  return write(deps, async (tx, changes) => {
    const workshop = await insertWorkshop(tx, values);
    return announceCreated(deps, tx, changes, workshop.id, user.id);
  });
}

/** POST /v1/organizations/:id/workshops: any member of the organization may create its workshops. */
export function createOrganizationWorkshop(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  input: CustomWorkshopInput,
): Promise<WorkshopOutput> {
  return write(deps, async (tx, changes) => {
    // Any member, facilitator or admin, may create the organization's workshops; strangers get 404.
    // Locked so that a member being removed meanwhile, on any instance, creates nothing after.
    await lockOrganization(tx, organizationId);
    await loadOrganizationAccess(tx, organizationId, user);
    await assertViewReferences(tx, '', input.view);
    const values = customWorkshop(input, { type: 'organization', id: organizationId }, user);
    assertSortable(mergeView(DEFAULT_VIEW, input.view), input.view);
    const workshop = await insertWorkshop(tx, values);
    return announceCreated(deps, tx, changes, workshop.id, user.id);
  });
}

/**
 * GET /v1/workshops/:id as JSON bytes, from the body cache while nothing it shows has changed: the
 * workshop's logged changes (its event seq), its row, and its owner (the identity epoch, as the
 * request's authentication read it moments ago). Readers whose step hides others' ratings have
 * answers of their own.
 */
export async function getWorkshopBody(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  identityEpoch: number,
): Promise<{ body: Uint8Array<ArrayBuffer>; role: string }> {
  const { db } = deps.database;
  const access = await loadAccess(db, workshopId, user);
  const scope = ratingsScopeFor(access);
  // Readers whose step hides others' ratings, or others' cards (and the ratings on them), have answers of their own.
  const personal =
    typeof scope === 'object' ? scope.userId : writesPrivately(access, access.prefs) ? access.userId : '';
  const key = `workshop\u0000${access.workshop.id}\u0000${personal}`;
  const version = `${access.workshop.lastEventSeq}:${access.workshop.updatedAt}:${identityEpoch}`;
  return {
    body: await bodyCache(db).body(key, version, () => workshopFor(db, deps.config, access)),
    role: access.role,
  };
}

/**
 * GET /v1/user/me/workshops: the workshops the user may open, less those single sign-on keeps
 * this session out of (docs/integrations.md#requiring-it-for-an-organization).
 */
export async function listWorkshops(
  deps: AppDeps,
  user: UserRow & Caller,
  filters: ListWorkshopsQuery,
): Promise<WorkshopOutput[]> {
  const { db } = deps.database;
  const output: WorkshopOutput[] = [];
  const rows = await listVisibleWorkshops(db, user.id, filters);
  for (const row of rows.filter((workshop) => !ssoBars(user, workshop))) {
    output.push(await workshopFor(db, deps.config, await loadAccess(db, row.id, user)));
  }
  return output;
}

/** GET /v1/organizations/:id/workshops: what `listWorkshops` shows of the organization's; members only (404 otherwise). */
export async function listOrganizationWorkshops(
  deps: AppDeps,
  user: UserRow,
  organizationId: string,
  filters: OrganizationWorkshopsQuery,
): Promise<WorkshopOutput[]> {
  await loadOrganizationAccess(deps.database.db, organizationId, user);
  return listWorkshops(deps, user, { ...filters, owner: organizationId });
}

async function stepOf(db: Db, workshopId: string, stepId: string): Promise<StepRow> {
  const step = await stepOfWorkshop(db, workshopId, stepId);
  if (!step) throw invalid('current_step_id', msg('error.workshops.not_a_step'));
  return step;
}

/**
 * PUT /v1/workshops/:id. Changing the current step copies that step's view into the workshop's
 * (explicit `view.*` members of the same request still win), logs `changeStep` and notifies the
 * other members; any other change logs `updateWorkshop`.
 */
export function updateWorkshop(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  input: UpdateWorkshopInput,
): Promise<WorkshopOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, user);
    const before = access.workshop;
    authorize(access, 'facilitate', { allowArchived: before.state === 'archived' && input.state === 'running' });
    await assertViewReferences(tx, workshopId, input.view);

    const patched = applySettings(before, input);
    const settingsChanged = diffFields(settingsOf(before), settingsOf(patched), SETTINGS);
    const stepChanged = input.current_step_id !== undefined && input.current_step_id !== before.currentStepId;
    const step = stepChanged && input.current_step_id ? await stepOf(tx, workshopId, input.current_step_id) : null;
    if (Object.keys(settingsChanged).length === 0 && !stepChanged) return toWorkshop(tx, deps.config, before, 'all');

    const after: WorkshopRow = {
      ...patched,
      currentStepId: stepChanged ? (input.current_step_id ?? null) : before.currentStepId,
      view: step ? mergeView(mergeView(DEFAULT_VIEW, step.view), input.view) : patched.view,
      accessCode:
        before.state === 'archived' && patched.state === 'running'
          ? await reopenWorkshop(tx, before)
          : before.accessCode,
      updatedAt: nowIso(),
    };
    assertSortable(after.view, input.view);
    await updateWorkshopRow(tx, workshopId, after);

    const recorded = await workshopForEvent(tx, deps.config, after);
    if (Object.keys(settingsChanged).length > 0) {
      changes.record({
        workshopId,
        action: 'updateWorkshop',
        userId: user.id,
        change: { workshop: recorded, changes: settingsChanged },
      });
    }
    if (stepChanged) {
      const stepNow = step ? toStep(step, await stepHasIllustration(tx, step.id)) : null;
      const moved = cardsVisibleMoved(access.prefs, stepNow?.prefs ?? DEFAULT_PREFS);
      changes.record({
        workshopId,
        action: 'changeStep',
        userId: user.id,
        change: { workshop: recorded, step: stepNow, ...moved },
      });
      if (step && after.changeStepNotifications) await notifyStepChange(deps, tx, changes, after, step, user);
    }
    return toWorkshop(tx, deps.config, after, 'all');
  });
}

async function notifyStepChange(
  deps: AppDeps,
  tx: Db,
  changes: ChangeRecorder,
  workshop: WorkshopRow,
  step: StepRow,
  actor: UserRow,
) {
  const recipients = (await membersOf(tx, workshop.id)).map((m) => m.userId).filter((id) => id !== actor.id);
  changes.notify(recipients, 'changeStep', {
    workshop: { id: workshop.id, title: workshop.title, public_url: workshopPublicUrl(deps.config, workshop.id) },
    step: { id: step.id, name: step.name, instructions: step.instructions },
    from: toUserSummary(actor),
  });
}

/** DELETE /v1/workshops/:id: everything in the workshop goes with it (foreign keys cascade). */
export async function deleteWorkshop(deps: AppDeps, user: UserRow, workshopId: string): Promise<void> {
  const exportFiles = await writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, user);
    authorize(access, 'facilitate');
    return removeWorkshopIn(tx, changes, deps, access.workshop, user.id);
  });
  // Before the answer, so that a client told 204 finds no file of the workshop left.
  await removeWorkshopExportFiles(deps, workshopId, exportFiles);
}

/**
 * Removes a workshop, its row locked, inside the caller's write (`deleteWorkshop`, an account's
 * deletion): its rows, logged as `removeWorkshop` by `actorId`, and its live document once the
 * write commits. Answers its exports' files, which the caller removes after the commit
 * (`removeWorkshopExportFiles`).
 */
export async function removeWorkshopIn(
  tx: Db,
  changes: ChangeRecorder,
  deps: Pick<AppDeps, 'config' | 'collab'>,
  workshop: WorkshopRow,
  actorId: string | null,
): Promise<FileRef[]> {
  const workshopId = workshop.id;
  const recorded = await workshopForEvent(tx, deps.config, workshop);
  const files = await dropWorkshopExports(tx, workshopId);
  await deleteWorkshopRow(tx, workshopId);
  // Recorded after the delete: there is no log left to write to, but listeners still hear of it.
  changes.record({ workshopId, action: 'removeWorkshop', userId: actorId, change: { workshop: recorded } });
  changes.afterCommit(() => {
    void deps.collab
      .forgetWorkshop(workshopId)
      .catch((err: unknown) => console.error('[workshops] dropping the document of a deleted workshop failed', err));
  });
  return files;
}
