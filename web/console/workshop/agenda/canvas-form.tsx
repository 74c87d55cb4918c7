/*
 * Laying out a canvas by hand: its name, the grid's size in columns and rows, and each zone's
 * name, place (x from the left, y from the top, in grid cells from 0) and size. Saving creates
 * the canvas anew (the API's one write for it), naming each existing zone by its id so that it keeps
 * its id and the cluster placed in it (docs/api.md#canvas): a canvas laid out by hand in the Canvas
 * tab survives an edit of its grid. What is laid out and not saved yet is kept for this tab
 * (kept.ts).
 */
import type { Canvas } from 'workshop-sdk';
import { Field, onSubmit, type Action } from '../../forms';
import { keptKey, useKeptForm } from '../../kept';

interface Zone {
  /** The zone's id when it is one of the canvas's, left out for a zone added in the form. */
  id?: string;
  name: string;
  x: number;
  y: number;
  cols: number;
  rows: number;
}
export interface CanvasBody {
  name: string;
  background: { cols: number; rows: number };
  zones: Zone[];
}
/**
 * Where a canvas laid out and not saved yet is kept: the panel opens the form when there is one,
 * and drops it once the canvas is replaced.
 */
export const keptCanvasKey = (workshopId: string) => keptKey('canvas', workshopId);
const NUMBERS: Array<[keyof Omit<Zone, 'id' | 'name'>, string]> = [
  ['x', 'From the left'],
  ['y', 'From the top'],
  ['cols', 'Width'],
  ['rows', 'Height'],
];

export function CanvasForm(props: {
  workshopId: string;
  canvas: Canvas | null;
  onSave: (body: CanvasBody) => unknown;
  action: Action;
}) {
  const { canvas } = props;
  const form = useKeptForm(keptCanvasKey(props.workshopId), {
    name: canvas?.name ?? 'Canvas',
    cols: String(canvas?.background.cols ?? 12),
    rows: String(canvas?.background.rows ?? 8),
    zones: canvas?.zones.map(({ id, name, x, y, cols, rows }): Zone => ({ id, name, x, y, cols, rows })) ?? [],
  });
  const { name, cols, rows, zones } = form.fields;
  const body = (): CanvasBody => ({
    name: name.value,
    background: { cols: Number(cols.value), rows: Number(rows.value) },
    zones: zones.value,
  });
  const change = (index: number, zone: Partial<Zone>) =>
    (zones.value = zones.value.map((each, at) => (at === index ? { ...each, ...zone } : each)));
  const addZone = () => (zones.value = [...zones.value, { name: '', x: 0, y: 0, cols: 1, rows: 1 }]);
  const preview = body();

  return (
    <form class="form canvas-form" onSubmit={onSubmit(() => props.onSave(body()))} aria-label="Canvas layout">
      <Field label="Canvas name" value={name} required maxLength={200} action={props.action} name="name" />
      <div class="number-row">
        <Field
          label="Columns"
          type="number"
          min={1}
          step="any"
          required
          value={cols}
          action={props.action}
          name="background.cols"
        />
        <Field
          label="Rows"
          type="number"
          min={1}
          step="any"
          required
          value={rows}
          action={props.action}
          name="background.rows"
        />
      </div>
      {zones.value.map((zone, index) => (
        <fieldset class="zone" key={index}>
          <legend>Zone {index + 1}</legend>
          <label class="field">
            Name
            <input value={zone.name} maxLength={200} onInput={(e) => change(index, { name: e.currentTarget.value })} />
          </label>
          <div class="number-row">
            {NUMBERS.map(([key, label]) => (
              <label class="field" key={key}>
                {label}
                <input
                  type="number"
                  min={key === 'x' || key === 'y' ? 0 : 1}
                  step="any"
                  value={Number.isNaN(zone[key]) ? '' : String(zone[key])}
                  onInput={(e) => change(index, { [key]: e.currentTarget.valueAsNumber })}
                />
              </label>
            ))}
          </div>
          <button
            type="button"
            class="danger"
            aria-label={`Remove zone ${index + 1}${zone.name ? ` (${zone.name})` : ''}`}
            onClick={() => (zones.value = zones.value.filter((_, at) => at !== index))}
          >
            Remove zone
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={addZone}>
        Add a zone
      </button>
      {preview.background.cols > 0 && preview.background.rows > 0 && <CanvasPreview canvas={preview} />}
      {canvas && (
        <p class="hint">Saving keeps the clusters placed in the zones still listed; a removed zone lets its go.</p>
      )}
      <button type="submit" class="primary" disabled={props.action.busy.value}>
        Save canvas
      </button>
    </form>
  );
}

/** The grid drawn to scale, each zone a named box at its place (positions as style properties, allowed by the policy). */
export function CanvasPreview(props: { canvas: Pick<CanvasBody, 'background' | 'zones'> }) {
  const { cols, rows } = props.canvas.background;
  const percent = (part: number, whole: number) => `${(part / whole) * 100}%`;
  return (
    <div
      class="canvas-preview"
      style={{ aspectRatio: `${cols} / ${rows}` }}
      role="img"
      aria-label={`Canvas layout: ${props.canvas.zones.map((zone) => zone.name).join(', ') || 'no zones'}`}
    >
      {props.canvas.zones.map((zone, index) => (
        <span
          key={index}
          class="canvas-zone"
          style={{
            left: percent(zone.x, cols),
            top: percent(zone.y, rows),
            width: percent(zone.cols, cols),
            height: percent(zone.rows, rows),
          }}
        >
          {zone.name}
        </span>
      ))}
    </div>
  );
}
