import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { CanvasOutput, ZoneOutput, type ZoneState } from '../../domain/canvas';
import { idString, requiredText } from '../../http/validation';
import { namedText } from '../../i18n/named-text';

export type CanvasRow = Schema['canvases']['$inferSelect'];
export type ZoneRow = Schema['zones']['$inferSelect'];

/** Grid coordinates and sizes are floats; the bound only keeps absurd numbers out of the document. */
const MAX_GRID = 100_000;
export const MAX_ZONES = 500;

export const size = v.pipe(v.number(), v.finite(), v.gtValue(0, 'Must be greater than 0.'), v.maxValue(MAX_GRID));
export const coordinate = v.pipe(v.number(), v.finite(), v.minValue(0, 'Must be 0 or more.'), v.maxValue(MAX_GRID));
const zoneName = v.pipe(v.string(), v.trim(), v.maxLength(200));
const httpUrl = v.pipe(v.string(), v.maxLength(2_048), v.url(), v.regex(/^https?:\/\//i, 'Must be an http(s) URL.'));

// Outputs

export const CanvasImage = v.object({ cols: size, rows: size, url: httpUrl });
export type CanvasImage = v.InferOutput<typeof CanvasImage>;

export const PredefinedCanvasOutput = v.object({
  id: v.string(),
  name: v.string(),
  background: v.object({ cols: v.number(), rows: v.number() }),
  zones: v.array(ZoneOutput),
});
export type PredefinedCanvasOutput = v.InferOutput<typeof PredefinedCanvasOutput>;

// Inputs

export const ZoneInput = v.object({ name: zoneName, x: coordinate, y: coordinate, rows: coordinate, cols: coordinate });
export type ZoneInput = v.InferOutput<typeof ZoneInput>;

/** A new canvas's zone: `id`, when it names a zone of the canvas replaced, keeps that zone (its id and cluster link). */
const CanvasZoneInput = v.object({ id: v.optional(idString), ...ZoneInput.entries });

/**
 * The body as sent. With `canvas_id` the predefined canvas fills every member left out, so each
 * is optional here; `CanvasDefinition` then requires them once the gaps are filled.
 */
export const CreateCanvasInput = v.object({
  canvas_id: v.optional(idString),
  name: v.optional(requiredText(200)),
  background: v.optional(v.object({ rows: v.optional(size), cols: v.optional(size) })),
  zones: v.optional(v.pipe(v.array(CanvasZoneInput), v.maxLength(MAX_ZONES))),
  image: v.optional(v.nullable(CanvasImage)),
});
export type CreateCanvasInput = v.InferOutput<typeof CreateCanvasInput>;

export const CanvasDefinition = v.object({
  name: requiredText(200),
  background: v.object({ rows: size, cols: size }),
  zones: v.optional(v.pipe(v.array(CanvasZoneInput), v.maxLength(MAX_ZONES)), []),
  image: v.optional(v.nullable(CanvasImage), null),
});
export type CanvasDefinition = v.InferOutput<typeof CanvasDefinition>;

/** `cluster_id` is required: null unlinks, so leaving it out is a mistake rather than a no-op. */
export const LinkZoneInput = v.object({ cluster_id: v.nullable(idString) });

// Predefined canvas files, written by hand: checked strictly, so a typo fails the start. Their
// names are messages of `locales/`, named by id (docs/i18n.md#template-and-canvas-text).

const slug = v.pipe(v.string(), v.regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'An id is a lower-case slug.'));

const PredefinedZone = v.strictObject({
  id: slug,
  name: namedText(200),
  x: coordinate,
  y: coordinate,
  rows: size,
  cols: size,
});

export const PredefinedCanvasFile = v.pipe(
  v.strictObject({
    id: slug,
    name: namedText(200),
    background: v.strictObject({ cols: size, rows: size }),
    zones: v.pipe(v.array(PredefinedZone), v.minLength(1), v.maxLength(MAX_ZONES)),
  }),
  v.check((c) => new Set(c.zones.map((z) => z.id)).size === c.zones.length, 'Zone ids must be unique within a canvas.'),
  v.check(
    (c) => c.zones.every((z) => z.x + z.cols <= c.background.cols && z.y + z.rows <= c.background.rows),
    'Every zone must lie inside the background.',
  ),
  v.check((c) => c.zones.every((a, i) => c.zones.slice(i + 1).every((b) => !overlap(a, b))), 'Zones must not overlap.'),
);
export type PredefinedCanvas = v.InferOutput<typeof PredefinedCanvasFile>;

type Rect = { x: number; y: number; rows: number; cols: number };
function overlap(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.cols && b.x < a.x + a.cols && a.y < b.y + b.rows && b.y < a.y + a.rows;
}

// Row and document state → output

export function toZone(id: string, state: ZoneState): ZoneOutput {
  return {
    id,
    name: state.name,
    x: state.x,
    y: state.y,
    rows: state.rows,
    cols: state.cols,
    cluster_id: state.cluster_id,
  };
}

export function zoneStateOf(row: Pick<ZoneRow, 'name' | 'x' | 'y' | 'rows' | 'cols' | 'clusterId'>): ZoneState {
  return { name: row.name, x: row.x, y: row.y, rows: row.rows, cols: row.cols, cluster_id: row.clusterId };
}

export function toCanvas(row: CanvasRow, zoneList: ZoneOutput[]): CanvasOutput {
  return {
    id: row.id,
    name: row.name,
    background: { id: row.backgroundId, cols: row.backgroundCols, rows: row.backgroundRows },
    zones: zoneList,
    image: row.image ?? null,
  };
}

export function toPredefinedCanvas(canvas: PredefinedCanvas): PredefinedCanvasOutput {
  return {
    id: canvas.id,
    name: canvas.name,
    background: { cols: canvas.background.cols, rows: canvas.background.rows },
    zones: canvas.zones.map((z) => ({
      id: z.id,
      name: z.name,
      x: z.x,
      y: z.y,
      rows: z.rows,
      cols: z.cols,
      cluster_id: null,
    })),
  };
}
