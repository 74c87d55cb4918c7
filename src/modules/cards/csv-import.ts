import type { AppDeps } from '../../deps';
import type { Db, Schema } from '../../db/database';
import { newId } from '../../db/columns';
import { writeWorkshop } from '../../db/write';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { planCardsImport, type ImportPlan } from './csv-plan';
import { cardIdsOfWorkshop, deleteCardsOfWorkshop, insertCardRows, reserveCardNumbers } from './repo';
import type { CardOutput } from '../../domain/cards';
import { relinkZones } from '../canvas/zones';
import { unhookViewReferences } from '../workshops/view-references';
import { cardsFor, type WorkshopRef } from './service';

/** Larger CSV files are refused with 413 (docs/api.md#authentication-and-errors). */
export const CSV_MAX_BYTES = 5 * 1024 * 1024;

/** Only facilitators import; checked before the upload is read, and again inside the write. */
export async function authorizeImport(deps: AppDeps, ref: WorkshopRef): Promise<void> {
  authorize(await loadAccess(deps.database.db, ref.workshopId, ref.caller), 'facilitate');
}

/**
 * Replaces every card of the workshop (and with them their feedback) by the cards of a CSV file.
 * A bad file changes nothing: it is read completely before the transaction starts. The heavy parts
 * (parsing, which yields to other requests as it goes; planning the rows; building the answer) run
 * outside the write transaction, so the write lock is held for the writes alone.
 */
export async function importCards(deps: AppDeps, ref: WorkshopRef, csv: string): Promise<CardOutput[]> {
  const plan = await planCardsImport(csv);
  const rows = plannedRows(ref, plan);
  const { db } = deps.database;
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, ref.workshopId, ref.caller);
    authorize(access, 'facilitate');
    const replaced = await cardIdsOfWorkshop(tx, ref.workshopId);
    await deleteCardsOfWorkshop(tx, ref.workshopId);
    await unhookViewReferences(deps, tx, changes, ref, { cardIds: replaced });
    await relinkZones(deps, { tx, changes }, { ...ref, from: replaced });
    const placements = await insertRows(tx, ref, rows);
    // The document drops the replaced cards and takes the new ones, in this transaction.
    await deps.collab.placeCards({ tx, changes }, ref.workshopId, { placements, removed: replaced });
    changes.record({
      workshopId: ref.workshopId,
      action: 'importCards',
      userId: ref.caller.id,
      change: { count: plan.count },
    });
  });
  return cardsFor(db, await loadAccess(db, ref.workshopId, ref.caller));
}

type PlannedRow = Schema['cards']['$inferInsert'] & { id: string; position: number };

/** The planned cards as rows in list order, without their numbers (handed out in the write). */
function plannedRows(ref: WorkshopRef, plan: ImportPlan): PlannedRow[] {
  const rows: PlannedRow[] = [];
  const base = { workshopId: ref.workshopId, userId: ref.caller.id, number: 0 };
  plan.clusters.forEach((cluster, clusterPosition) => {
    const clusterId = newId();
    rows.push({
      ...base,
      id: clusterId,
      type: 'cluster',
      title: cluster.title,
      content: cluster.content,
      color: cluster.color,
      aside: cluster.aside,
      parentId: null,
      position: clusterPosition,
    });
    cluster.ideas.forEach((idea, position) => {
      rows.push({
        ...base,
        id: newId(),
        type: 'idea',
        title: idea.title,
        content: idea.content,
        color: null,
        aside: idea.aside,
        parentId: clusterId,
        position,
      });
    });
  });
  return rows;
}

/**
 * Inserts the rows, numbered in list order after the workshop's last number; returns their
 * positions by card id.
 */
async function insertRows(tx: Db, ref: WorkshopRef, rows: PlannedRow[]): Promise<Record<string, { position: number }>> {
  if (rows.length === 0) return {};
  const first = await reserveCardNumbers(tx, ref.workshopId, rows.length);
  rows.forEach((row, index) => (row.number = first + index));
  await insertCardRows(tx, rows);
  return Object.fromEntries(rows.map((row) => [row.id, { position: row.position }]));
}
