import { eq } from 'drizzle-orm';
import type { ZoneState } from '../../collab/types';
import { newId } from '../../db/columns';
import { canvases, zones } from '../../db/schema/index';
import { invalid, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { parseInput } from '../../http/validation';
import { findCluster } from '../cards/repo';
import { write } from '../events/recorder';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { CANVASES, type CanvasCatalog } from './catalog';
import { currentZones, setZoneLinks, zoneOutputs, zonesForRead, type CanvasDeps } from './zones';
import { canvasOf, zoneRow, zoneRowsOf } from './repo';
import {
  CanvasDefinition,
  toCanvas,
  type CanvasOutput,
  type CanvasRow,
  type CreateCanvasInput,
  type PredefinedCanvasOutput,
  type ZoneOutput,
} from './schemas';

export type { CanvasDeps } from './zones';

export function listPredefinedCanvases(catalog: CanvasCatalog = CANVASES): readonly PredefinedCanvasOutput[] {
  return catalog.outputs;
}

export function getPredefinedCanvas(id: string, catalog: CanvasCatalog = CANVASES): PredefinedCanvasOutput {
  const canvas = catalog.outputs.find((c) => c.id === id);
  if (!canvas) throw notFound('Canvas');
  return canvas;
}

/** The canvas with its zones' values; REST reads pass `zonesForRead`, which loads no document. */
function canvasAsDocumentSays(deps: CanvasDeps, row: CanvasRow, zonesOf = currentZones): CanvasOutput {
  return toCanvas(row, zoneOutputs(zonesOf(deps, row.workshopId, zoneRowsOf(deps.database.db, row.id))));
}

export function getCanvas(deps: CanvasDeps, user: UserRow, workshopId: string): CanvasOutput {
  const { db } = deps.database;
  loadAccess(db, workshopId, user.id);
  const row = canvasOf(db, workshopId);
  if (!row) throw notFound('Canvas');
  return canvasAsDocumentSays(deps, row, zonesForRead);
}

/** A document patch removing every zone the document holds, whatever SQL knew of them. */
function everyZoneRemoved(deps: CanvasDeps, workshopId: string): Record<string, ZoneState | null> {
  return Object.fromEntries([...deps.collab.zones(workshopId).keys()].map((id) => [id, null]));
}

/**
 * Fills what the body left out from the predefined canvas it names (explicit members win, the
 * background member by member), then requires a complete canvas. The background of a canvas made
 * from a predefined one keeps that canvas's slug as its id.
 */
function definitionOf(input: CreateCanvasInput, catalog: CanvasCatalog): { definition: CanvasDefinition; backgroundId: string } {
  const predefined = input.canvas_id === undefined ? undefined : catalog.canvases.get(input.canvas_id);
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
 */
export function createCanvas(deps: CanvasDeps, user: UserRow, workshopId: string, input: CreateCanvasInput, catalog: CanvasCatalog = CANVASES): CanvasOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const { definition, backgroundId } = definitionOf(input, catalog);
    const patch = everyZoneRemoved(deps, workshopId);

    const previous = canvasOf(db, workshopId);
    if (previous) {
      const canvas = canvasAsDocumentSays(deps, previous);
      // Zones go with their canvas (foreign key cascade).
      tx.delete(canvases).where(eq(canvases.id, previous.id)).run();
      changes.record({ workshopId, action: 'removeCanvas', userId: user.id, change: { canvas } });
    }

    const row = tx
      .insert(canvases)
      .values({
        id: newId(),
        workshopId,
        name: definition.name,
        backgroundId,
        backgroundCols: definition.background.cols,
        backgroundRows: definition.background.rows,
        image: definition.image,
      })
      .returning()
      .get();
    const zoneRows = definition.zones.map((zone, position) => ({ ...zone, id: newId(), canvasId: row.id, workshopId, clusterId: null, position }));
    if (zoneRows.length > 0) tx.insert(zones).values(zoneRows).run();
    const zoneList = zoneRows.map((z) => ({ id: z.id, name: z.name, x: z.x, y: z.y, rows: z.rows, cols: z.cols, cluster_id: null }));
    for (const { id, ...state } of zoneList) patch[id] = state;

    const canvas = toCanvas(row, zoneList);
    changes.record({ workshopId, action: 'addCanvas', userId: user.id, change: { canvas } });
    deps.collab.placeZones(changes, workshopId, patch);
    return canvas;
  });
}

/** Deletes the canvas; its zones leave the document in the same transaction. */
export function deleteCanvas(deps: CanvasDeps, user: UserRow, workshopId: string): void {
  const { db } = deps.database;
  write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const row = canvasOf(db, workshopId);
    if (!row) throw notFound('Canvas');
    const canvas = canvasAsDocumentSays(deps, row);
    tx.delete(canvases).where(eq(canvases.id, row.id)).run();
    changes.record({ workshopId, action: 'removeCanvas', userId: user.id, change: { canvas } });
    deps.collab.placeZones(changes, workshopId, everyZoneRemoved(deps, workshopId));
  });
}

/** A zone found by its id alone: the caller must be a member of its workshop (404 otherwise). */
export function getZone(deps: CanvasDeps, user: UserRow, zoneId: string): ZoneOutput {
  const { db } = deps.database;
  const row = zoneRow(db, zoneId);
  if (!row) throw notFound('Zone');
  loadAccess(db, row.workshopId, user.id);
  return zoneOutputs(zonesForRead(deps, row.workshopId, [row]))[0]!;
}

/** Links a zone to a cluster of the workshop, or unlinks it with null; facilitators only. */
export function linkZone(deps: CanvasDeps, user: UserRow, workshopId: string, zoneId: string, clusterId: string | null): void {
  const { db } = deps.database;
  write(deps, (_tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const row = zoneRow(db, zoneId);
    if (!row || row.workshopId !== workshopId) throw notFound('Zone');
    if (clusterId !== null && !findCluster(db, workshopId, clusterId)) {
      throw invalid('cluster_id', 'cluster_id must name a cluster of this workshop, or be null.');
    }
    const [zone] = currentZones(deps, workshopId, [row]);
    setZoneLinks(deps, changes, { workshopId, userId: user.id }, [{ ...zone!, clusterId }]);
  });
}
