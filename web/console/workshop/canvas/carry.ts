/*
 * Carrying a cluster on the Canvas tab (docs/pages.md#the-canvas): a pointer press that moves past
 * a few pixels becomes a drag, dropped where it is let go; Enter or Space picks the cluster up for
 * the keyboard, the arrow keys move it a grid cell at a time, Enter drops it and Escape (or leaving
 * it) puts it back, each step told in words.
 */
import type { Signal } from '@preact/signals';
import type { Card } from 'workshop-sdk';
import { t } from '../../i18n';
import { clamp } from './layout';

type Point = { x: number; y: number };

/** Where a point of the canvas is, as the announcements' values (console.canvas.*) say it. */
export interface Where {
  where: 'none' | 'named' | 'unnamed';
  zone: string;
}

/** A cluster being moved, at a point of the canvas in grid units (null while a pointer is off it). */
export interface Carried {
  id: string;
  by: 'pointer' | 'keyboard';
  at: Point | null;
}

/** A pointer pressed on a cluster, until it is let go. */
export interface Press {
  id: string;
  pointerId: number;
  x: number;
  y: number;
  dragging: boolean;
}

/** How far a pointer goes before a press becomes a drag, in CSS pixels. */
const DRAG_THRESHOLD = 4;

export interface CarryContext {
  carried: Signal<Carried | null>;
  press: { current: Press | null };
  told: Signal<string>;
  startPoint: (id: string) => Point;
  pointOf: (event: PointerEvent) => Point | null;
  drop: (id: string, at: Point) => void;
  whereAt: (x: number, y: number) => Where;
  cols: number;
  rows: number;
}

/** A cluster's pointer and keyboard handlers. */
export function carryHandlers(card: Card, context: CarryContext) {
  const { carried, press, told, startPoint, pointOf, drop, whereAt, cols, rows } = context;
  return {
    onPointerDown(event: PointerEvent) {
      if (event.button !== 0 || carried.value?.by === 'keyboard') return;
      (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
      press.current = { id: card.id, pointerId: event.pointerId, x: event.clientX, y: event.clientY, dragging: false };
    },
    onPointerMove(event: PointerEvent) {
      const pressed = press.current;
      if (!pressed || pressed.pointerId !== event.pointerId) return;
      if (!pressed.dragging && Math.hypot(event.clientX - pressed.x, event.clientY - pressed.y) < DRAG_THRESHOLD)
        return;
      pressed.dragging = true;
      carried.value = { id: card.id, by: 'pointer', at: pointOf(event) };
    },
    onPointerUp(event: PointerEvent) {
      const pressed = press.current;
      if (!pressed || pressed.pointerId !== event.pointerId) return;
      press.current = null;
      const at = pressed.dragging ? pointOf(event) : null;
      if (at) drop(card.id, at);
      else carried.value = null;
    },
    onPointerCancel() {
      press.current = null;
      if (carried.value?.by === 'pointer') carried.value = null;
    },
    onKeyDown(event: KeyboardEvent) {
      const now = carried.value;
      const mine = now?.by === 'keyboard' && now.id === card.id ? now : null;
      if (!mine) {
        if (event.key !== 'Enter' && event.key !== ' ') return;
        event.preventDefault();
        const at = startPoint(card.id);
        carried.value = { id: card.id, by: 'keyboard', at };
        told.value = t('console.canvas.picked_up', { cluster: clusterName(card), ...whereAt(at.x, at.y) });
        return;
      }
      const at = mine.at!;
      const step: Record<string, [number, number]> = {
        ArrowLeft: [-1, 0],
        ArrowRight: [1, 0],
        ArrowUp: [0, -1],
        ArrowDown: [0, 1],
      };
      if (event.key in step) {
        event.preventDefault();
        const [dx, dy] = step[event.key]!;
        const next = { x: clamp(at.x + dx, cols), y: clamp(at.y + dy, rows) };
        carried.value = { ...mine, at: next };
        told.value = t('console.canvas.moved_over', { cluster: clusterName(card), ...whereAt(next.x, next.y) });
      } else if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        drop(card.id, at);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        carried.value = null;
        told.value = t('console.canvas.cancelled', { cluster: clusterName(card) });
      }
    },
    onBlur() {
      const now = carried.value;
      if (now?.by === 'keyboard' && now.id === card.id) {
        carried.value = null;
        told.value = t('console.canvas.cancelled', { cluster: clusterName(card) });
      }
    },
  };
}

export function clusterName(card: Card | undefined): string {
  if (!card) return t('console.canvas.the_cluster');
  return (
    card.title.trim() ||
    card.content.trim().slice(0, 60) ||
    t('console.canvas.cluster_number', { number: card.short_id })
  );
}
