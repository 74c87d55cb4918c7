import type { CardPlacement, ZoneState } from '../domain/canvas';

/*
 * Document layout. `doc.getMap('cards')` maps card id → `{position, x, y}` and `doc.getMap('zones')`
 * maps zone id → `{name, x, y, rows, cols, cluster_id}`. Values are PLAIN objects, not nested Y.Maps:
 * a move writes a card's whole placement at once, so two people dragging the same card end on one
 * of their placements (last writer wins per card), never on one's x with the other's y, and moves
 * of different cards never conflict. Clients may write anything into a Y.Map, so every value they
 * write passes through the checks below before it reaches the SQL copy; what fails is repaired by
 * the server (see `repair.ts`).
 */
export const CARDS_MAP = 'cards';
export const ZONES_MAP = 'zones';

const MAX_POSITION = 1_000_000;
const MAX_COORDINATE = 10_000_000;
/** Zone geometry follows the canvas REST bounds (grid units, 0..100,000). */
const MAX_GRID = 100_000;
const MAX_ZONE_NAME = 200;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function coordinate(value: unknown): number | null | undefined {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_COORDINATE ? value : undefined;
}

function gridNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_GRID ? value : undefined;
}

/**
 * The placement a value stands for, or null when it cannot be one (not a plain object, `position`
 * not an integer ≥ 0, a coordinate not a finite number). Missing coordinates mean "not placed".
 */
export function cleanPlacement(value: unknown): CardPlacement | null {
  if (!isRecord(value)) return null;
  const { position } = value;
  if (typeof position !== 'number' || !Number.isInteger(position) || position < 0 || position > MAX_POSITION)
    return null;
  const x = coordinate(value.x);
  const y = coordinate(value.y);
  if (x === undefined || y === undefined) return null;
  return { position, x, y };
}

/** True when the stored value is exactly the clean placement (no extra members, no missing ones). */
export function isCleanPlacement(value: unknown, clean: CardPlacement): boolean {
  return isRecord(value) && Object.keys(value).length === 3 && samePlacement(value as unknown as CardPlacement, clean);
}

export function samePlacement(a: CardPlacement, b: CardPlacement): boolean {
  return a.position === b.position && a.x === b.x && a.y === b.y;
}

/** The zone a value stands for, or null (cluster existence is checked by the caller). */
export function cleanZone(value: unknown): ZoneState | null {
  if (!isRecord(value)) return null;
  const { name, cluster_id: clusterId } = value;
  if (typeof name !== 'string' || name.length > MAX_ZONE_NAME) return null;
  if (clusterId !== null && clusterId !== undefined && typeof clusterId !== 'string') return null;
  const [x, y, rows, cols] = [value.x, value.y, value.rows, value.cols].map(gridNumber);
  if (x === undefined || y === undefined || rows === undefined || cols === undefined) return null;
  return { name, x, y, rows, cols, cluster_id: clusterId ?? null };
}

export function isCleanZone(value: unknown, clean: ZoneState): boolean {
  return isRecord(value) && Object.keys(value).length === 6 && sameZone(value as unknown as ZoneState, clean);
}

export function sameZone(a: ZoneState, b: ZoneState): boolean {
  return (
    a.name === b.name &&
    a.x === b.x &&
    a.y === b.y &&
    a.rows === b.rows &&
    a.cols === b.cols &&
    a.cluster_id === b.cluster_id
  );
}

export interface StackMember {
  id: string;
  /** Position the document holds now. */
  position: number;
  /** Position before the change being judged (equal to `position` for cards nobody moved). */
  previous: number;
}

/**
 * The order a stack takes after some of its cards were given new positions: by the position asked
 * for; on a tie, a card moved up goes before the card it lands on, a card moved down after it (as
 * if it were taken out and put back at that index, like `arrange`). Indexes in the result are the
 * new 0..n-1 positions.
 */
export function orderStack(members: readonly StackMember[]): string[] {
  const direction = (m: StackMember) => Math.sign(m.position - m.previous);
  return [...members]
    .sort(
      (a, b) =>
        a.position - b.position ||
        direction(a) - direction(b) ||
        a.previous - b.previous ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .map((m) => m.id);
}
