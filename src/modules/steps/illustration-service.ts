import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { nowIso } from '../../db/columns';
import { stepIllustrations } from '../../db/schema/index';
import type { AppDeps } from '../../deps';
import { invalid, notFound } from '../../http/errors';
import type { StepIllustration } from '../events/changes';
import { diffFields, write } from '../events/recorder';
import { ownUpload } from '../uploads/storage';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { findStep } from './service';
import {
  toIllustration,
  type CreateIllustrationInput,
  type IllustrationOutput,
  type IllustrationRow,
  type UpdateIllustrationInput,
} from './schemas';

/** Raster formats the image routes can crop and resize; SVG is left out because it can carry scripts. */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/tiff']);

function findIllustration(db: DbOrTx, stepId: string): IllustrationRow | undefined {
  return db.select().from(stepIllustrations).where(eq(stepIllustrations.stepId, stepId)).get();
}

function requireIllustration(db: DbOrTx, stepId: string): IllustrationRow {
  const row = findIllustration(db, stepId);
  if (!row) throw notFound('Illustration');
  return row;
}

/** Event payloads name the step, which the illustration output itself does not. */
function logged(deps: AppDeps, row: IllustrationRow): StepIllustration {
  return { ...toIllustration(row, deps.config), step_id: row.stepId };
}

export function getIllustration(deps: AppDeps, workshopId: string, userId: string, stepId: string): IllustrationOutput {
  const { db } = deps.database;
  loadAccess(db, workshopId, userId);
  findStep(db, workshopId, stepId);
  return toIllustration(requireIllustration(db, stepId), deps.config);
}

/** Points the step's illustration at an uploaded image, replacing the one it had. */
export function setIllustration(
  deps: AppDeps,
  workshopId: string,
  userId: string,
  stepId: string,
  input: CreateIllustrationInput,
): IllustrationOutput {
  return write(deps, (tx, changes) => {
    authorize(loadAccess(deps.database.db, workshopId, userId), 'facilitate');
    findStep(tx, workshopId, stepId);
    const file = ownUpload(tx, userId, { container: input.blob.container, key: input.blob.key });
    if (!IMAGE_TYPES.has(file.mimetype.toLowerCase())) {
      throw invalid('blob.mimetype', `An illustration must be a PNG, JPEG, GIF, WebP, AVIF or TIFF image, not ${file.mimetype}.`);
    }
    const previous = findIllustration(tx, stepId);
    if (previous) {
      tx.delete(stepIllustrations).where(eq(stepIllustrations.id, previous.id)).run();
      changes.record({ workshopId, action: 'removeIllustration', userId, change: { illustration: logged(deps, previous) } });
    }
    const row = tx
      .insert(stepIllustrations)
      .values({
        stepId,
        workshopId,
        name: input.name ?? file.name,
        align: input.align,
        fileKey: file.key,
        container: file.container,
        mimetype: file.mimetype,
      })
      .returning()
      .get();
    changes.record({ workshopId, action: 'addIllustration', userId, change: { illustration: logged(deps, row) } });
    return toIllustration(row, deps.config);
  });
}

export function updateIllustration(
  deps: AppDeps,
  workshopId: string,
  userId: string,
  stepId: string,
  input: UpdateIllustrationInput,
): IllustrationOutput {
  return write(deps, (tx, changes) => {
    authorize(loadAccess(deps.database.db, workshopId, userId), 'facilitate');
    findStep(tx, workshopId, stepId);
    const before = requireIllustration(tx, stepId);
    const wanted = { ...before, align: input.align ?? before.align, name: input.name ?? before.name };
    const diff = diffFields(before, wanted, ['name', 'align']);
    // Nothing to change: nothing written, nothing logged.
    if (Object.keys(diff).length === 0) return toIllustration(before, deps.config);
    const row = tx
      .update(stepIllustrations)
      .set({ align: wanted.align, name: wanted.name, updatedAt: nowIso() })
      .where(eq(stepIllustrations.id, before.id))
      .returning()
      .get()!;
    changes.record({ workshopId, action: 'updateIllustration', userId, change: { illustration: logged(deps, row), changes: diff } });
    return toIllustration(row, deps.config);
  });
}

export function deleteIllustration(deps: AppDeps, workshopId: string, userId: string, stepId: string): void {
  write(deps, (tx, changes) => {
    authorize(loadAccess(deps.database.db, workshopId, userId), 'facilitate');
    findStep(tx, workshopId, stepId);
    const row = requireIllustration(tx, stepId);
    tx.delete(stepIllustrations).where(eq(stepIllustrations.id, row.id)).run();
    changes.record({ workshopId, action: 'removeIllustration', userId, change: { illustration: logged(deps, row) } });
  });
}
