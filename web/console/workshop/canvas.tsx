/*
 * The Canvas tab: the workshop's canvas with its zones, where facilitators place clusters by hand
 * (docs/pages.md#the-canvas). A cluster is dragged with a pointer (mouse, pen, touch) or carried
 * with the keyboard: Enter or Space picks it up, the arrow keys move it a grid cell at a time,
 * Enter drops it and Escape puts it back, each step told through a live region. A drop writes the
 * cluster's placement and the zone links through the workshop's Yjs document (the SDK's canvas
 * client), so every console and screen follows it; between drops the tab draws what the document
 * holds, other facilitators' moves included. A drag in progress is shared as presence only, shown
 * to the others as a ghost (docs/realtime.md: write the placement once, on drop).
 */
import { useSignal } from '@preact/signals';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import type { Card } from 'workshop-sdk';
import { openCanvas, type Placement, type WorkshopCanvas } from 'workshop-sdk/canvas';
import { api, problemText } from '../api';
import { t } from '../i18n';
import type { WorkshopScope } from './context';
import { inWorkshop, useLiveRead } from './live-read';
import { carryHandlers, clusterName, type Carried, type Press, type Where } from './canvas/carry';
import { zoneAt, zoneOfCluster } from '../../shared/zones';
import { clamp, dropCluster, zoneList, type Zones } from './canvas/layout';

export function CanvasTab({ scope }: { scope: WorkshopScope }) {
  const rest = useLiveRead(
    scope,
    /Canvas|Zone/,
    () => api.get('/v1/workshops/{workshop_id}/canvas', inWorkshop(scope)),
    null,
    () => scope.live.state.workshop.has_canvas,
  );
  const doc = useSignal<{ placements: Record<string, Placement>; zones: Zones } | null>(null);
  const problem = useSignal('');
  const carried = useSignal<Carried | null>(null);
  const told = useSignal('');
  const canvasRef = useRef<WorkshopCanvas | null>(null);
  const surface = useRef<HTMLDivElement>(null);
  const press = useRef<Press | null>(null);
  const refocus = useRef<string | null>(null);
  /** Where the other facilitators are dragging clusters now, from their presence. */
  const othersMoving = useSignal<Array<{ card_id: string; x: number; y: number }>>([]);

  useEffect(() => {
    const canvas = openCanvas(api, scope.id, { WebSocket: window.WebSocket });
    canvasRef.current = canvas;
    const read = () => (doc.value = { placements: canvas.placements(), zones: canvas.zones() });
    canvas.synced.then(read, (err: unknown) => (problem.value = problemText(err)));
    const stop = canvas.observe(() => {
      if (canvas.provider.synced) read();
    });
    const stopPresence = canvas.observePresence((others) => {
      othersMoving.value = [...others.values()].flatMap((presence) => (presence.dragging ? [presence.dragging] : []));
    });
    return () => {
      stop();
      stopPresence();
      canvas.destroy();
      canvasRef.current = null;
    };
  }, [scope.id]);

  // A drag is shown to the others through presence, and written to the document only on drop.
  const sharing = carried.value?.at ? { card_id: carried.value.id, ...carried.value.at } : null;
  useEffect(() => {
    canvasRef.current?.setPresence({ dragging: sharing });
  }, [sharing?.card_id, sharing?.x, sharing?.y]);

  // A cluster dropped into another zone is drawn anew there: the keyboard stays on it.
  useLayoutEffect(() => {
    if (refocus.current === null) return;
    const found = surface.current?.parentElement?.querySelector<HTMLElement>(
      `[data-cluster-id="${CSS.escape(refocus.current)}"]`,
    );
    // Until the document's new state is drawn, the cluster may not be there yet.
    if (!found) return;
    found.focus();
    if (document.activeElement === found) refocus.current = null;
  });

  const background = rest.value.value;
  if (background === undefined || (background !== null && doc.value === null))
    return <p class="empty">{rest.problem.value || problem.value || t('console.loading')}</p>;
  if (background === null || doc.value === null) return <p class="empty">{t('console.canvas.none')}</p>;

  const { placements, zones } = doc.value;
  const zonesInOrder = zoneList(zones);
  const cols = Math.max(background.background.cols, ...zonesInOrder.map(([, z]) => z.x + z.cols));
  const rows = Math.max(background.background.rows, ...zonesInOrder.map(([, z]) => z.y + z.rows));
  const clusters = scope.state.value.cards.filter((card) => card.type === 'cluster' && card.parent === null);
  const titleOf = (id: string) => clusterName(clusters.find((card) => card.id === id));
  const zoneName = (id: string | null) => (id === null ? null : (zones[id]?.name ?? null));
  const whereOf = (zone: string | null): Where => {
    const name = zoneName(zone);
    return { where: name === null ? 'none' : name ? 'named' : 'unnamed', zone: name ?? '' };
  };
  const whereAt = (x: number, y: number) => whereOf(zoneAt(zones, x, y));

  const byZone = new Map<string | null, Card[]>();
  const unplaced: Card[] = [];
  for (const cluster of clusters) {
    const placement = placements[cluster.id];
    const zone = zoneOfCluster(zones, cluster.id, placement);
    if (zone === null && (!placement || placement.x === null || placement.y === null)) unplaced.push(cluster);
    else byZone.set(zone, [...(byZone.get(zone) ?? []), cluster]);
  }

  const pointOf = (event: PointerEvent): { x: number; y: number } | null => {
    const box = surface.current?.getBoundingClientRect();
    if (!box || box.width === 0 || box.height === 0) return null;
    const [x, y] = [((event.clientX - box.left) / box.width) * cols, ((event.clientY - box.top) / box.height) * rows];
    return x < 0 || y < 0 || x > cols || y > rows ? null : { x: clamp(x, cols), y: clamp(y, rows) };
  };
  const drop = (id: string, at: { x: number; y: number }) => {
    const canvas = canvasRef.current;
    carried.value = null;
    if (!canvas) return;
    try {
      const zone = dropCluster(canvas, id, at.x, at.y);
      problem.value = '';
      refocus.current = id;
      told.value = t('console.canvas.dropped', { cluster: titleOf(id), ...whereOf(zone) });
    } catch (err) {
      problem.value = problemText(err);
    }
  };
  const startPoint = (id: string) => {
    const placement = placements[id];
    if (placement && placement.x !== null && placement.y !== null)
      return { x: clamp(placement.x, cols), y: clamp(placement.y, rows) };
    const first = zonesInOrder[0]?.[1];
    return first
      ? { x: clamp(first.x + first.cols / 2, cols), y: clamp(first.y + first.rows / 2, rows) }
      : { x: clamp(cols / 2, cols), y: clamp(rows / 2, rows) };
  };

  const handlers = (card: Card) =>
    carryHandlers(card, { carried, press, told, startPoint, pointOf, drop, whereAt, cols, rows });

  const chipButton = (card: Card) => {
    const moving = carried.value?.id === card.id;
    return (
      <button
        type="button"
        class="canvas-chip"
        data-cluster-id={card.id}
        aria-describedby="canvas-hand-help"
        aria-pressed={moving && carried.value?.by === 'keyboard' ? 'true' : undefined}
        data-moving={moving ? '' : undefined}
        {...handlers(card)}
      >
        {clusterName(card)}
      </button>
    );
  };
  const chip = (card: Card) => <li key={card.id}>{chipButton(card)}</li>;

  const ghost = carried.value?.at ? carried.value : null;
  const over = ghost?.at ? zoneAt(zones, ghost.at.x, ghost.at.y) : null;
  const percent = (part: number, whole: number) => `${(part / whole) * 100}%`;
  const loose = byZone.get(null) ?? [];

  return (
    <div class="canvas-hand">
      <p class="hint" id="canvas-hand-help">
        {t('console.canvas.help')}
      </p>
      {problem.value && (
        <p class="problem" role="alert">
          {problem.value}
        </p>
      )}
      <h3>{t('console.canvas.tray')}</h3>
      {unplaced.length > 0 ? (
        <ul class="canvas-chips canvas-tray">{unplaced.map(chip)}</ul>
      ) : (
        <p class="empty">{clusters.length === 0 ? t('console.canvas.no_clusters') : t('console.canvas.all_placed')}</p>
      )}
      <div
        class="canvas-surface"
        ref={surface}
        // As wide as the tab allows, yet short enough to drag from the list above onto any zone.
        style={{ aspectRatio: `${cols} / ${rows}`, width: `min(100%, ${(60 * cols) / rows}vh)` }}
      >
        {zonesInOrder.map(([id, zone]) => (
          <section
            key={id}
            class="canvas-hand-zone"
            data-zone-id={id}
            data-over={over === id ? '' : undefined}
            aria-labelledby={`zone-name-${id}`}
            style={{
              left: percent(zone.x, cols),
              top: percent(zone.y, rows),
              width: percent(zone.cols, cols),
              height: percent(zone.rows, rows),
            }}
          >
            <h3 class="canvas-hand-zone-name" id={`zone-name-${id}`}>
              {zone.name || t('console.canvas.unnamed_zone')}
            </h3>
            <ul class="canvas-chips">{(byZone.get(id) ?? []).map(chip)}</ul>
          </section>
        ))}
        {loose.length > 0 && (
          <ul class="canvas-loose" aria-label={t('console.canvas.loose')}>
            {loose.map((card) => {
              const placement = placements[card.id]!;
              return (
                <li
                  key={card.id}
                  class="canvas-loose-item"
                  style={{
                    left: percent(clamp(placement.x!, cols), cols),
                    top: percent(clamp(placement.y!, rows), rows),
                  }}
                >
                  {chipButton(card)}
                </li>
              );
            })}
          </ul>
        )}
        {othersMoving.value.map((moving) => (
          <span
            key={moving.card_id}
            class="canvas-ghost canvas-ghost-other"
            aria-hidden="true"
            style={{ left: percent(clamp(moving.x, cols), cols), top: percent(clamp(moving.y, rows), rows) }}
          >
            {titleOf(moving.card_id)}
          </span>
        ))}
        {ghost?.at && (
          <span
            class="canvas-ghost"
            aria-hidden="true"
            style={{ left: percent(ghost.at.x, cols), top: percent(ghost.at.y, rows) }}
          >
            {titleOf(ghost.id)}
          </span>
        )}
      </div>
      <p class="visually-hidden" role="status" aria-live="assertive">
        {told.value}
      </p>
    </div>
  );
}
