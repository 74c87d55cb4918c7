/*
 * The workshop's canvas: the board's background grid and its named zones (docs/api.md#canvas).
 * A facilitator starts from a predefined one (SWOT, impact/effort…) or lays out their own grid
 * and zones (canvas-form.tsx); a workshop has one canvas, so either replaces the one it had.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import type { Canvas } from 'workshop-sdk';
import { api } from '../../api';
import { ConfirmButton, Problem, onSubmit, useAction } from '../../forms';
import { rich, t } from '../../i18n';
import type { WorkshopScope } from '../context';
import { drop, kept } from '../../kept';
import { CanvasForm, CanvasPreview, keptCanvasKey } from './canvas-form';
import { Choose } from './choose';
import { inWorkshop, useLiveRead } from '../live-read';

type Predefined = { id: string; name: string };

export function CanvasPanel({ scope }: { scope: WorkshopScope }) {
  const canvas = useLiveRead(
    scope,
    /Canvas|Zone/,
    () => api.get('/v1/workshops/{workshop_id}/canvas', inWorkshop(scope)),
    null,
    () => scope.live.state.workshop.has_canvas,
  );
  // A layout not saved yet (kept for this tab through a reload) is shown open.
  const unsaved = useMemo(() => kept(keptCanvasKey(scope.id)) !== null, []);
  const predefined = useSignal<Predefined[]>([]);
  const chosen = useSignal('');
  const action = useAction();
  useEffect(() => {
    api.get('/v1/canvas').then(
      (found) => {
        predefined.value = found;
        chosen.value ||= found[0]?.id ?? '';
      },
      () => undefined,
    );
  }, []);

  // What a write answers is shown at once: the live state learns of the new canvas (or of none) a moment later.
  // A layout kept unsaved is for the canvas replaced: dropped before the form is drawn anew for the new one.
  const write = (work: () => Promise<Canvas | null>) =>
    action.run(async () => {
      const answer = await work();
      drop(keptCanvasKey(scope.id));
      canvas.set(answer);
    });
  const usePredefined = () =>
    write(() =>
      api.post('/v1/workshops/{workshop_id}/canvas', { ...inWorkshop(scope), body: { canvas_id: chosen.value } }),
    );
  const remove = () =>
    write(async () => {
      await api.delete('/v1/workshops/{workshop_id}/canvas', inWorkshop(scope));
      return null;
    });
  const current = canvas.value.value;

  return (
    <div class="canvas-panel">
      {current === undefined ? (
        <p class="empty">{canvas.problem.value || t('console.loading')}</p>
      ) : current === null ? (
        <p class="empty">{t('console.agenda.canvas.none')}</p>
      ) : (
        <div class="canvas-current">
          <p>
            {rich('console.agenda.canvas.size', {
              name: current.name,
              cols: current.background.cols,
              rows: current.background.rows,
              zones: current.zones.length,
              strong: (words) => <strong class="canvas-name">{words}</strong>,
              meta: (words) => <span class="meta">{words}</span>,
            })}
          </p>
          <CanvasPreview canvas={current} />
          <ConfirmButton
            label={t('console.agenda.canvas.delete')}
            class="danger"
            question={t('console.agenda.canvas.delete_question')}
            confirm={t('console.agenda.canvas.delete_confirm')}
            onConfirm={remove}
          />
        </div>
      )}
      <form class="add-row" onSubmit={onSubmit(usePredefined)} aria-label={t('console.agenda.canvas.use_predefined')}>
        <Choose
          label={t('console.agenda.canvas.predefined')}
          options={predefined.value.map((each) => [each.id, each.name] as const)}
          value={chosen.value}
          onChange={(id) => (chosen.value = id)}
        />
        <button type="submit" disabled={action.busy.value || !chosen.value}>
          {current ? t('console.agenda.canvas.replace') : t('console.agenda.canvas.use')}
        </button>
      </form>
      <Problem action={action} />
      <details class="group" open={unsaved}>
        <summary>{current ? t('console.agenda.canvas.change') : t('console.agenda.canvas.lay_out')}</summary>
        <CanvasForm
          key={current ? JSON.stringify(current.zones.map((zone) => zone.id)) : 'none'}
          workshopId={scope.id}
          canvas={current ?? null}
          onSave={(body) => write(() => api.post('/v1/workshops/{workshop_id}/canvas', { ...inWorkshop(scope), body }))}
          action={action}
        />
      </details>
    </div>
  );
}
