/*
 * The board's side of a move: the context the gestures read (always the latest render's cards),
 * the PUT that puts a card in its place, and the focus given back to the moved card's grip once
 * the live state shows it there (a card that changes cluster is drawn anew, and moving a node
 * drops its focus).
 */
import type { Signal } from '@preact/signals';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { Card } from 'workshop-sdk';
import { api } from '../../api';
import { useAction, type Action } from '../../forms';
import { t } from '../../i18n';
import { nameOf, positionFor, stackOf, type Column, type Place } from './model';
import { describePlace, type BoardContext } from './places';

/** A card whose grip gets the focus back once the live state shows it where it was sent. */
export type Refocus = { id: string; parent: string | null; position: number };

export interface BoardParts {
  board: BoardContext;
  /** The moves' state (a refusal is shown with it). */
  moving: Action;
  root: { current: HTMLUListElement | null };
  refocus: { current: Refocus | null };
}

export function useBoard(
  workshopId: string,
  cards: Card[],
  columns: Column[],
  handlers: { askMerge: BoardContext['askMerge']; announcement: Signal<string> },
): BoardParts {
  const moving = useAction();
  const root = useRef<HTMLUListElement>(null);
  const refocus = useRef<Refocus | null>(null);
  const byId = useMemo(() => new Map(cards.map((card) => [card.id, card])), [cards]);
  const latest = useRef({ cards, columns, byId });
  latest.current = { cards, columns, byId };

  const board = useMemo<BoardContext>(() => {
    const context: BoardContext = {
      root: () => root.current,
      columns: () => latest.current.columns,
      card: (id) => latest.current.byId.get(id),
      move: (card, place) => void move(card, place),
      askMerge: (source, target) => handlers.askMerge(source, target),
      announce: (text) => (handlers.announcement.value = text),
    };
    const move = async (card: Card, place: Place) => {
      const now = latest.current;
      const current = now.byId.get(card.id) ?? card;
      const shown =
        place.parent === null
          ? now.columns.map((column) => column.head)
          : (now.columns.find((column) => column.head.id === place.parent)?.ideas ?? []);
      const position = positionFor(stackOf(now.cards, place.parent), shown, card.id, place.index);
      if (current.parent === place.parent && current.position === position)
        return context.announce(t('console.board.announce.stays', { card: nameOf(current) }));
      const where = describePlace(context, current, place);
      refocus.current = { id: card.id, parent: place.parent, position };
      const body = current.type === 'idea' ? { parent: place.parent, position } : { position };
      const done = await moving.run(() =>
        api.put('/v1/workshops/{workshop_id}/cards/{id}', {
          params: { path: { workshop_id: workshopId, id: card.id } },
          body,
        }),
      );
      if (done) context.announce(t('console.board.announce.moved', { card: nameOf(current), ...where }));
      else refocus.current = null;
    };
    return context;
  }, [workshopId]);

  useEffect(() => {
    const wanted = refocus.current;
    if (!wanted) return;
    const card = byId.get(wanted.id);
    if (card && (card.parent !== wanted.parent || card.position !== wanted.position)) return;
    refocus.current = null;
    const grip = card && root.current?.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(card.id)}"] .grip`);
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (grip && lost) grip.focus();
  });

  return { board, moving, root, refocus };
}
