/*
 * Moving a row of a list with the pointer: mouse, pen or finger alike, through pointer events.
 * The row's handle captures the pointer, so the moves keep coming wherever it goes; the row it
 * would land at is marked (the drop indicator), and letting go asks for the move. The handle's
 * stylesheet sets `touch-action: none`, so a finger drags the row instead of scrolling the page.
 */
import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';

export interface Dragging {
  /** The index of the row being dragged, and the index it would have if let go now. */
  from: number;
  to: number;
}

export function useDragOrder(onDrop: (from: number, to: number) => void) {
  const dragging = useSignal<Dragging | null>(null);
  const list = useRef<HTMLOListElement>(null);

  /** The index the dragged row would take: how many of the other rows have their middle above the pointer. */
  const landing = (from: number, y: number) => {
    const rows = [...(list.current?.children ?? [])] as HTMLElement[];
    return rows.filter((row, index) => {
      if (index === from) return false;
      const box = row.getBoundingClientRect();
      return box.top + box.height / 2 < y;
    }).length;
  };

  /** What a row's handle listens to. */
  const handle = (index: number) => ({
    onPointerDown(event: PointerEvent) {
      if (event.button !== 0) return;
      event.preventDefault();
      (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
      dragging.value = { from: index, to: index };
    },
    onPointerMove(event: PointerEvent) {
      const now = dragging.value;
      if (!now) return;
      const to = landing(now.from, event.clientY);
      if (to !== now.to) dragging.value = { from: now.from, to };
    },
    onPointerUp() {
      const done = dragging.value;
      dragging.value = null;
      if (done && done.to !== done.from) onDrop(done.from, done.to);
    },
    onPointerCancel() {
      dragging.value = null;
    },
  });

  /** The class a row takes while a drag goes on: the dragged one, or where it would land (a line above or below). */
  const rowClass = (index: number) => {
    const now = dragging.value;
    if (!now) return '';
    if (index === now.from) return 'dragging';
    if (index !== now.to) return '';
    return now.to < now.from ? 'drop-before' : 'drop-after';
  };

  return { list, handle, rowClass, dragging };
}

/** `items` with the one at `from` moved to `to`. */
export function moved<T>(items: readonly T[], from: number, to: number): T[] {
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}
