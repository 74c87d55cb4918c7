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
import { language, t } from '../../i18n';
import { pageIntl } from '../../../shared/i18n';
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
/** A zone's place and size: the grid's own, measured from its top left corner in every language. */
const NUMBERS = [
  ['x', 'console.agenda.canvas.from_left'],
  ['y', 'console.agenda.canvas.from_top'],
  ['cols', 'console.agenda.canvas.width'],
  ['rows', 'console.agenda.canvas.height'],
] as const satisfies ReadonlyArray<readonly [keyof Omit<Zone, 'id' | 'name'>, string]>;

export function CanvasForm(props: {
  workshopId: string;
  canvas: Canvas | null;
  onSave: (body: CanvasBody) => unknown;
  action: Action;
}) {
  const { canvas } = props;
  const form = useKeptForm(keptCanvasKey(props.workshopId), {
    name: canvas?.name ?? t('console.agenda.canvas.default_name'),
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
    <form
      class="form canvas-form"
      onSubmit={onSubmit(() => props.onSave(body()))}
      aria-label={t('console.agenda.canvas.layout')}
    >
      <Field
        label={t('console.agenda.canvas.name')}
        value={name}
        required
        maxLength={200}
        action={props.action}
        name="name"
      />
      <div class="number-row">
        <Field
          label={t('console.agenda.canvas.columns')}
          type="number"
          min={1}
          step="any"
          required
          value={cols}
          action={props.action}
          name="background.cols"
        />
        <Field
          label={t('console.agenda.canvas.rows')}
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
          <legend>{t('console.agenda.canvas.zone', { number: index + 1 })}</legend>
          <label class="field">
            {t('console.common.name')}
            <input value={zone.name} maxLength={200} onInput={(e) => change(index, { name: e.currentTarget.value })} />
          </label>
          <div class="number-row">
            {NUMBERS.map(([key, label]) => (
              <label class="field" key={key}>
                {t(label)}
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
            aria-label={
              zone.name
                ? t('console.agenda.canvas.remove_zone_named', { number: index + 1, name: zone.name })
                : t('console.agenda.canvas.remove_zone_numbered', { number: index + 1 })
            }
            onClick={() => (zones.value = zones.value.filter((_, at) => at !== index))}
          >
            {t('console.agenda.canvas.remove_zone')}
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={addZone}>
        {t('console.agenda.canvas.add_zone')}
      </button>
      {preview.background.cols > 0 && preview.background.rows > 0 && <CanvasPreview canvas={preview} />}
      {canvas && <p class="hint">{t('console.agenda.canvas.keeps_clusters')}</p>}
      <button type="submit" class="primary" disabled={props.action.busy.value}>
        {t('console.agenda.canvas.save')}
      </button>
    </form>
  );
}

/** The grid drawn to scale, each zone a named box at its place (positions as style properties, allowed by the policy). */
export function CanvasPreview(props: { canvas: Pick<CanvasBody, 'background' | 'zones'> }) {
  const { cols, rows } = props.canvas.background;
  const percent = (part: number, whole: number) => `${(part / whole) * 100}%`;
  const names = props.canvas.zones.map((zone) => zone.name).filter(Boolean);
  return (
    <div
      class="canvas-preview"
      style={{ aspectRatio: `${cols} / ${rows}` }}
      role="img"
      aria-label={
        names.length > 0
          ? t('console.agenda.canvas.preview', { zones: zoneNames(names) })
          : t('console.agenda.canvas.preview_empty')
      }
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

/** Zone names as a list in the console's language ("A, B, C"; "A، B، C" in Arabic). */
function zoneNames(names: string[]): string {
  void language.value;
  return new Intl.ListFormat(pageIntl(), { type: 'unit', style: 'short' }).format(names);
}
