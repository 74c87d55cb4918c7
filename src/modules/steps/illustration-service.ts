import type { Db } from '../../db/database';
import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../http/errors';
import type { StepIllustration } from '../../domain/events';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { countAgainstWorkshop } from '../uploads/quota';
import { ownUpload } from '../uploads/storage';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import type { Caller } from '../../domain/permissions';
import { findStep } from './service';
import { deleteIllustrationRow, illustrationOf, insertIllustration, updateIllustrationRow } from './repo';
import {
  toIllustration,
  type CreateIllustrationInput,
  type IllustrationRow,
  type UpdateIllustrationInput,
} from './schemas';
import type { IllustrationOutput } from '../../domain/steps';
import { msg } from '../../i18n/messages';

/** Raster formats the image routes can crop and resize; SVG is left out because it can carry scripts. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/tiff']);

async function requireIllustration(db: Db, stepId: string): Promise<IllustrationRow> {
  const row = await illustrationOf(db, stepId);
  if (!row) throw notFound('illustration');
  return row;
}

/** Event payloads name the step, which the illustration output itself does not. */
function logged(deps: AppDeps, row: IllustrationRow): StepIllustration {
  return { ...toIllustration(row, deps.config), step_id: row.stepId };
}

export async function getIllustration(
  deps: AppDeps,
  workshopId: string,
  caller: Caller,
  stepId: string,
): Promise<IllustrationOutput> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, caller);
  await findStep(db, workshopId, stepId);
  return toIllustration(await requireIllustration(db, stepId), deps.config);
}

/** Points the step's illustration at an uploaded image, replacing the one it had. */
export function setIllustration(
  deps: AppDeps,
  workshopId: string,
  caller: Caller,
  stepId: string,
  input: CreateIllustrationInput,
): Promise<IllustrationOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, caller), 'facilitate');
    await findStep(tx, workshopId, stepId);
    const file = await ownUpload(tx, caller.id, { container: input.blob.container, key: input.blob.key });
    if (!IMAGE_TYPES.has(file.mimetype.toLowerCase())) {
      throw invalid('blob.mimetype', msg('error.steps.illustration_type', { type: file.mimetype }));
    }
    await countAgainstWorkshop(tx, deps.config, file, workshopId);
    const previous = await illustrationOf(tx, stepId);
    if (previous) {
      await deleteIllustrationRow(tx, previous.id);
      changes.record({
        workshopId,
        action: 'removeIllustration',
        userId: caller.id,
        change: { illustration: logged(deps, previous) },
      });
    }
    const row = await insertIllustration(tx, {
      stepId,
      workshopId,
      name: input.name ?? file.name,
      align: input.align,
      fileKey: file.key,
      container: file.container,
      mimetype: file.mimetype,
    });
    changes.record({
      workshopId,
      action: 'addIllustration',
      userId: caller.id,
      change: { illustration: logged(deps, row) },
    });
    return toIllustration(row, deps.config);
  });
}

export function updateIllustration(
  deps: AppDeps,
  workshopId: string,
  caller: Caller,
  stepId: string,
  input: UpdateIllustrationInput,
): Promise<IllustrationOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, caller), 'facilitate');
    await findStep(tx, workshopId, stepId);
    const before = await requireIllustration(tx, stepId);
    const wanted = { ...before, align: input.align ?? before.align, name: input.name ?? before.name };
    const diff = diffFields(before, wanted, ['name', 'align']);
    // Nothing to change: nothing written, nothing logged.
    if (Object.keys(diff).length === 0) return toIllustration(before, deps.config);
    const row = await updateIllustrationRow(tx, before.id, { align: wanted.align, name: wanted.name });
    changes.record({
      workshopId,
      action: 'updateIllustration',
      userId: caller.id,
      change: { illustration: logged(deps, row), changes: diff },
    });
    return toIllustration(row, deps.config);
  });
}

export async function deleteIllustration(
  deps: AppDeps,
  workshopId: string,
  caller: Caller,
  stepId: string,
): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, caller), 'facilitate');
    await findStep(tx, workshopId, stepId);
    const row = await requireIllustration(tx, stepId);
    await deleteIllustrationRow(tx, row.id);
    changes.record({
      workshopId,
      action: 'removeIllustration',
      userId: caller.id,
      change: { illustration: logged(deps, row) },
    });
  });
}
