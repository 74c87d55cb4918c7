import type { OpenWrite } from '../../collab/types';
import type { ZoneState } from '../../domain/canvas';
import { newId } from '../../db/columns';
import type { Db } from '../../db/database';
import { invalid, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { parseInput } from '../../http/validation';
import { writeWorkshop } from '../../db/write';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { CANVASES, type CanvasCatalog } from './catalog';
import { currentZones, setZoneLinks, zoneOutputs, zonesForRead, type CanvasDeps, type CurrentZone } from './zones';
import { canvasOf, deleteCanvasRow, insertCanvas, insertZones, isClusterOf, zoneRow, zoneRowsOf } from './repo';
import {
  CanvasDefinition,
  toCanvas,
  type CanvasRow,
  type CreateCanvasInput,
  type PredefinedCanvasOutput,
  type ZoneRow,
} from './schemas';
import type { CanvasOutput, ZoneOutput } from '../../domain/canvas';

export type { CanvasDeps } from './zones';

/** The predefined canvases, their names in `lang`. */
export function listPredefinedCanvases(
  lang: string,
  catalog: CanvasCatalog = CANVASES,
): readonly PredefinedCanvasOutput[] {
  return catalog.outputs(lang);
}

export function getPredefinedCanvas(
  id: string,
  lang: string,
  catalog: CanvasCatalog = CANVASES,
): PredefinedCanvasOutput {
  const canvas = catalog.outputs(lang).find((c) => c.id === id);
  if (!canvas) throw notFound('Canvas');
  return canvas;
}

/**
 * The canvas with its zones' values, read through `db`: writes pass `currentZones` (the document's
 * values), REST reads `zonesForRead`, which loads no document.
 */
async function canvasAsDocumentSays(
  db: Db,
  row: CanvasRow,
  zonesOf: (rows: ZoneRow[]) => Promise<CurrentZone[]>,
): Promise<CanvasOutput> {
  return toCanvas(row, zoneOutputs(await zonesOf(await zoneRowsOf(db, row.id))));
}

/** `canvasAsDocumentSays` inside a write. */
function canvasInWrite(deps: CanvasDeps, write: OpenWrite, row: CanvasRow): Promise<CanvasOutput> {
  return canvasAsDocumentSays(write.tx, row, (rows) => currentZones(deps, write, row.workshopId, rows));
}

export async function getCanvas(deps: CanvasDeps, user: UserRow, workshopId: string): Promise<CanvasOutput> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, user);
  const row = await canvasOf(db, workshopId);
  if (!row) throw notFound('Canvas');
  return canvasAsDocumentSays(db, row, (rows) => zonesForRead(deps, row.workshopId, rows));
}

/** A document patch removing every zone the document holds, whatever SQL knew of them. */
async function everyZoneRemoved(
  deps: CanvasDeps,
  write: OpenWrite,
  workshopId: string,
): Promise<Record<string, ZoneState | null>> {
  return Object.fromEntries([...(await deps.collab.zones(write, workshopId)).keys()].map((id) => [id, null]));
}

/**
 * Fills what the body left out from the predefined canvas it names (explicit members win, the
 * background member by member), its names in the workshop's language `lang`, then requires a
 * complete canvas. The background of a canvas made from a predefined one keeps that canvas's slug
 * as its id.
 */
function definitionOf(
  input: CreateCanvasInput,
  catalog: CanvasCatalog,
  lang: string,
): { definition: CanvasDefinition; backgroundId: string } {
  const predefined =
    input.canvas_id === undefined ? undefined : catalog.outputs(lang).find((c) => c.id === input.canvas_id);
  if (input.canvas_id !== undefined && !predefined) {
    throw invalid('canvas_id', 'canvas_id must name a predefined canvas (see GET /v1/canvas).');
  }
  const background = { ...predefined?.background };
  if (input.background?.cols !== undefined) background.cols = input.background.cols;
  if (input.background?.rows !== undefined) background.rows = input.background.rows;
  const merged = {
    name: input.name ?? predefined?.name,
    background,
    zones: input.zones ?? predefined?.zones.map((z) => ({ name: z.name, x: z.x, y: z.y, rows: z.rows, cols: z.cols })),
    image: input.image,
  };
  return { definition: parseInput(CanvasDefinition, merged, 'body'), backgroundId: predefined?.id ?? newId() };
}

/**
 * Creates the workshop's canvas, replacing the one it had. SQL gets the canvas and the copy of its
 * zones in the transaction; after commit the document drops every zone it held and takes the new ones.
 * A zone given with the id of one of the replaced canvas's zones keeps that id and its cluster link
 * (the console's canvas form saves that way, so a canvas laid out by hand survives an edit).
 */
export function createCanvas(
  deps: CanvasDeps,
  user: UserRow,
  workshopId: string,
  input: CreateCanvasInput,
  catalog: CanvasCatalog = CANVASES,
): Promise<CanvasOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const write = { tx, changes };
    const access = await loadAccess(tx, workshopId, user);
    authorize(access, 'facilitate');
    const { definition, backgroundId } = definitionOf(input, catalog, access.workshop.language);
    const patch = await everyZoneRemoved(deps, write, workshopId);

    const previous = await canvasOf(tx, workshopId);
    // Zones the body names by id that the current canvas has keep their id and cluster link.
    const kept = new Map<string, string | null>();
    if (previous) {
      const canvas = await canvasInWrite(deps, write, previous);
      for (const zone of canvas.zones) kept.set(zone.id, zone.cluster_id);
      // Zones go with their canvas (foreign key cascade).
      await deleteCanvasRow(tx, previous.id);
      changes.record({ workshopId, action: 'removeCanvas', userId: user.id, change: { canvas } });
    }

    const row = await insertCanvas(tx, {
      id: newId(),
      workshopId,
      name: definition.name,
      backgroundId,
      backgroundCols: definition.background.cols,
      backgroundRows: definition.background.rows,
      image: definition.image,
    });
    const zoneRows = definition.zones.map(({ id, ...zone }, position) => {
      const keep = id !== undefined && kept.has(id);
      const clusterId = keep ? kept.get(id)! : null;
      // An id given twice keeps its zone once.
      if (keep) kept.delete(id);
      return { ...zone, id: keep ? id : newId(), canvasId: row.id, workshopId, clusterId, position };
    });
    await insertZones(tx, zoneRows);
    const zoneList = zoneRows.map((z) => ({
      id: z.id,
      name: z.name,
      x: z.x,
      y: z.y,
      rows: z.rows,
      cols: z.cols,
      cluster_id: z.clusterId,
    }));
    for (const { id, ...state } of zoneList) patch[id] = state;

    const canvas = toCanvas(row, zoneList);
    changes.record({ workshopId, action: 'addCanvas', userId: user.id, change: { canvas } });
    await deps.collab.placeZones(write, workshopId, patch);
    return canvas;
  });
}

/** Deletes the canvas; its zones leave the document in the same transaction. */
export async function deleteCanvas(deps: CanvasDeps, user: UserRow, workshopId: string): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    const write = { tx, changes };
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const row = await canvasOf(tx, workshopId);
    if (!row) throw notFound('Canvas');
    const canvas = await canvasInWrite(deps, write, row);
    await deleteCanvasRow(tx, row.id);
    changes.record({ workshopId, action: 'removeCanvas', userId: user.id, change: { canvas } });
    await deps.collab.placeZones(write, workshopId, await everyZoneRemoved(deps, write, workshopId));
  });
}

/** A zone found by its id alone: the caller must be a member of its workshop (404 otherwise). */
export async function getZone(deps: CanvasDeps, user: UserRow, zoneId: string): Promise<ZoneOutput> {
  const { db } = deps.database;
  const row = await zoneRow(db, zoneId);
  if (!row) throw notFound('Zone');
  await loadAccess(db, row.workshopId, user);
  return zoneOutputs(await zonesForRead(deps, row.workshopId, [row]))[0]!;
}

/**
 * Links a zone to a cluster of the workshop, or unlinks it with null; facilitators only. A zone
 * linked to that cluster before lets go of it: a cluster is linked by one zone at most.
 */
export async function linkZone(
  deps: CanvasDeps,
  user: UserRow,
  workshopId: string,
  zoneId: string,
  clusterId: string | null,
): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    const write = { tx, changes };
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const row = await zoneRow(tx, zoneId);
    if (!row || row.workshopId !== workshopId) throw notFound('Zone');
    if (clusterId !== null && !(await isClusterOf(tx, workshopId, clusterId))) {
      throw invalid('cluster_id', 'cluster_id must name a cluster of this workshop, or be null.');
    }
    const zones = await currentZones(deps, write, workshopId, await zoneRowsOf(tx, row.canvasId));
    await setZoneLinks(deps, write, { workshopId, caller: user }, zones, [{ id: zoneId, clusterId }]);
  });
}
