/*
 * The Board tab: the workshop's clusters and ideas as they arrive (the live state's cards, in its
 * order), filtered to the active ones, the ones set aside or all; clusters added, ideas added to
 * them; cards moved, merged and reordered by pointer or keyboard (board/drag.ts,
 * board/keyboard.ts); a card opened to edit it and read what people gave it (board/detail.tsx);
 * and the results ranked by votes or by a criterion's average (board/results.tsx). A large board is
 * searched, folded by cluster, drawn compact and travelled by keys with one tab stop for its cards
 * (board/tools.tsx, board/view.ts, board/roving.ts).
 */
import { useSignal, type Signal } from '@preact/signals';
import { useEffect, useLayoutEffect, useMemo } from 'preact/hooks';
import type { Card } from 'workshop-sdk';
import { api } from '../api';
import { Problem } from '../forms';
import { language, t } from '../i18n';
import { AddCluster } from './board/add-cluster';
import { ClusterColumn, GRAB_HELP_ID } from './board/cards';
import { CardDetail } from './board/detail';
import { MergeDialog, MoveDialog } from './board/dialogs';
import { startDrag } from './board/drag';
import { keyboardMover } from './board/keyboard';
import { columnsOf, nameOf, type Column, type Filter } from './board/model';
import { neighbours, type BoardContext } from './board/places';
import { Results } from './board/results';
import { useSpotlight } from './board/spotlight';
import type { OwnVotes } from './board/own-votes';
import { focusCard, keepTabStop, takeTabStop, travel, NAV } from './board/roving';
import { storedCompact, ViewTools, type ViewState } from './board/tools';
import { searched } from './board/view';
import { useBoard, type BoardParts } from './board/use-board';
import type { WorkshopScope } from './context';
import { inWorkshop, useLiveRead } from './live-read';

type Open =
  { kind: 'detail'; id: string } | { kind: 'move'; id: string } | { kind: 'merge'; id: string; target: string | null };

/**
 * `own`: the facilitator's votes, kept by the workshop's shell across tabs. `inRun`: the board beside the Run tab's controls, drawn compact, without the forms that add
 * clusters and the filter (the Board tab has them), its cards opened to spotlight, vote and rate.
 */
export function Board({ scope, own, inRun = false }: { scope: WorkshopScope; own: OwnVotes | null; inRun?: boolean }) {
  const filter = useSignal<Filter>('active');
  const results = useSignal(false);
  const open = useSignal<Open | null>(null);
  const announcement = useSignal('');
  const view: ViewState = {
    query: useSignal(''),
    compact: useSignal(inRun || storedCompact()),
    folded: useSignal<ReadonlySet<string>>(new Set()),
  };
  // Authors' names, for the search: the workshop's members, read again as people join.
  const members = useLiveRead(scope, /Member|Join|Role|Guest/, () =>
    api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop(scope)),
  );
  const names = useMemo(
    () => new Map((members.value.value ?? []).map((member) => [member.user_id, member.name])),
    [members.value.value],
  );
  const cards = scope.state.value.cards;
  const filtered = useMemo(() => columnsOf(cards, filter.value), [cards, filter.value]);
  const query = view.query.value;
  const found = useMemo(
    () => searched(filtered, query, (card) => (card.user_id && names.get(card.user_id)) || ''),
    [filtered, query, names],
  );
  const columns = found.columns;
  const { board, moving, root, refocus } = useBoard(scope.id, cards, columns, {
    askMerge: (source, target) => (open.value = { kind: 'merge', id: source.id, target: target.id }),
    announcement,
  });
  const keys = useMemo(() => keyboardMover(board), [board]);
  useEffect(() => () => keys.cancel(), [keys]);

  // A dialog about a card someone else deleted or merged away closes.
  const opened = (open.value && board.card(open.value.id)) || null;
  useEffect(() => {
    if (open.value && !opened) open.value = null;
  }, [opened]);

  const cardOf = (element: Element) => board.card(element.closest<HTMLElement>('[data-card-id]')?.dataset.cardId ?? '');
  useLayoutEffect(() => keepTabStop(root.current));
  const onClick = (event: MouseEvent) => {
    const button = (event.target as Element).closest<HTMLElement>('[data-act]');
    const card = button && cardOf(button);
    const act = button?.dataset.act;
    if (card && act === 'fold') {
      const folded = new Set(view.folded.value);
      if (!folded.delete(card.id)) folded.add(card.id);
      view.folded.value = folded;
      return;
    }
    if (card && act === 'skip') {
      // To the next cluster shown, and from the last back to the first.
      const clusters = Array.from(root.current?.querySelectorAll<HTMLElement>('[data-kind="cluster"]') ?? []);
      const here = button.closest<HTMLElement>('[data-kind="cluster"]')!;
      const to = clusters[clusters.indexOf(here) + 1] ?? clusters[0];
      if (focusCard(to)) to!.scrollIntoView({ block: 'start' });
      return;
    }
    if (card && act === 'spotlight') {
      void spotlight.put(scope, card.id === litId ? null : card.id);
      return;
    }
    if (!card || (act !== 'open' && act !== 'move' && act !== 'merge')) return;
    if (act === 'merge') open.value = { kind: 'merge', id: card.id, target: null };
    else open.value = act === 'open' ? { kind: 'detail', id: card.id } : { kind: 'move', id: card.id };
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const grip = (event.target as Element).closest('[data-act="grab"]');
    const card = grip && cardOf(grip);
    if (card && keys.keyDown(event, card)) return;
    if (root.current) travel(root.current, event);
  };
  const ideas = cards.length - cards.filter((card) => card.parent === null).length;
  const litId = scope.state.value.view.card;
  const spotlight = useSpotlight();

  return (
    <div class="board-tab">
      <div class="board-tools">
        {!inRun && <AddCluster workshopId={scope.id} cards={cards} />}
        {!inRun && (
          <div class="board-filter">
            <label for="board-filter">{t('console.board.show')}</label>
            <select
              id="board-filter"
              value={filter.value}
              onChange={(e) => (filter.value = e.currentTarget.value as Filter)}
            >
              <option value="active">{t('console.board.filter.active')}</option>
              <option value="aside">{t('console.board.filter.aside')}</option>
              <option value="all">{t('console.board.filter.all')}</option>
            </select>
          </div>
        )}
        <div class="choices" role="group" aria-label={t('console.board.show_as')}>
          <button type="button" aria-pressed={!results.value} onClick={() => (results.value = false)}>
            {t('console.board.as_board')}
          </button>
          <button type="button" aria-pressed={results.value} onClick={() => (results.value = true)}>
            {t('console.board.as_results')}
          </button>
        </div>
      </div>
      {!results.value && <ViewTools view={view} found={found} root={() => root.current} density={!inRun} />}
      <p id={GRAB_HELP_ID} class="visually-hidden">
        {t('console.board.grab_help')}
      </p>
      <p class="visually-hidden" aria-live="assertive">
        {announcement}
      </p>
      <Problem action={moving} />
      <Problem action={spotlight.action} />
      {results.value ? (
        <Results scope={scope} columns={columns} onOpen={(card) => (open.value = { kind: 'detail', id: card.id })} />
      ) : (
        <section aria-labelledby="board-title">
          <h2 id="board-title" class="meta board-count">
            {t('console.board.count', { clusters: columns.length, ideas })}
          </h2>
          {columns.length === 0 && (
            <p class="empty">
              {found.matches !== null
                ? t('console.board.empty.no_match')
                : filter.value === 'aside'
                  ? t('console.board.empty.nothing_aside')
                  : t('console.board.empty.no_clusters')}
            </p>
          )}
          <ul
            class={view.compact.value ? 'clusters compact' : 'clusters'}
            ref={root}
            onClick={onClick}
            onKeyDown={onKeyDown}
            onFocusIn={(event) => {
              const control = (event.target as Element).closest<HTMLElement>(`[${NAV}]`);
              if (control && root.current) takeTabStop(root.current, control);
            }}
            onPointerDown={(event) => startDrag(board, event)}
            onFocusOut={(event) => {
              if (!(
                event.relatedTarget instanceof Element &&
                event.relatedTarget.closest('[data-act="grab"]') === event.target
              ))
                keys.cancel();
            }}
          >
            {columns.map((column, i) => (
              <ClusterColumn
                key={column.head.id}
                head={column.head}
                ideas={column.ideas}
                workshopId={scope.id}
                folded={view.folded.value.has(column.head.id)}
                last={i === columns.length - 1}
                language={language.value}
                litId={
                  litId !== null && (litId === column.head.id || column.ideas.some((idea) => idea.id === litId))
                    ? litId
                    : null
                }
              />
            ))}
          </ul>
        </section>
      )}
      {opened && (
        <Dialog
          scope={scope}
          open={open}
          card={opened}
          cards={cards}
          columns={columns}
          board={board}
          refocus={refocus}
          own={own}
        />
      )}
    </div>
  );
}

function Dialog(props: {
  scope: WorkshopScope;
  open: Signal<Open | null>;
  card: Card;
  cards: Card[];
  columns: Column[];
  board: BoardContext;
  refocus: BoardParts['refocus'];
  own: OwnVotes | null;
}) {
  const { scope, open, card, cards } = props;
  const close = () => (open.value = null);
  const which = open.value!;
  if (which.kind === 'detail') {
    const cluster = card.parent === null ? null : (cards.find((c) => c.id === card.parent) ?? null);
    const ideas = card.parent === null ? cards.filter((c) => c.parent === card.id).length : 0;
    return <CardDetail scope={scope} card={card} cluster={cluster} ideas={ideas} own={props.own} onClose={close} />;
  }
  if (which.kind === 'move') {
    const clusters = cards.filter((c) => c.parent === null);
    const onMove = (parent: string) => {
      close();
      props.board.move(card, { parent, index: neighbours(props.board, card, parent).length });
    };
    return <MoveDialog card={card} clusters={clusters} onClose={close} onMove={onMove} />;
  }
  const target = which.target === null ? null : (cards.find((c) => c.id === which.target) ?? null);
  return (
    <MergeDialog
      workshopId={scope.id}
      source={card}
      target={target}
      columns={props.columns}
      onClose={close}
      onMerged={(merged) => {
        props.refocus.current = { id: merged.id, parent: merged.parent, position: merged.position };
        props.board.announce(t('console.board.merged', { title: nameOf(merged) }));
        close();
      }}
    />
  );
}
