import * as v from 'valibot';

/*
 * A workshop's canvas and its zones, and the places the workshop's Yjs document holds for cards and
 * zones (docs/architecture.md#layers): the document is the truth for those values, SQL keeps a copy.
 */

export interface CardPlacement {
  position: number;
  x: number | null;
  y: number | null;
}

export interface ZoneState {
  name: string;
  x: number;
  y: number;
  rows: number;
  cols: number;
  cluster_id: string | null;
}

export const ZoneOutput = v.object({
  id: v.string(),
  name: v.string(),
  x: v.number(),
  y: v.number(),
  rows: v.number(),
  cols: v.number(),
  /** The linked cluster, or null. */
  cluster_id: v.nullable(v.string()),
});
export type ZoneOutput = v.InferOutput<typeof ZoneOutput>;

export const CanvasOutput = v.object({
  id: v.string(),
  name: v.string(),
  /** `id` is the predefined canvas the workshop canvas was made from, or its own id. */
  background: v.object({ id: v.string(), cols: v.number(), rows: v.number() }),
  zones: v.array(ZoneOutput),
  image: v.nullable(v.object({ cols: v.number(), rows: v.number(), url: v.string() })),
});
export type CanvasOutput = v.InferOutput<typeof CanvasOutput>;
