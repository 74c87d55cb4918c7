/*
 * The tools for a large board: a search that narrows it (the count of what matches said to
 * screen readers), the compact density, folding every cluster or none, and a list that jumps to
 * any cluster in one gesture (board/view.ts, board/roving.ts).
 */
import type { Signal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { rich, t } from '../../i18n';
import type { Column } from './model';
import { focusCard } from './roving';
import { matchText, type Searched } from './view';

export interface ViewState {
  query: Signal<string>;
  compact: Signal<boolean>;
  /** The ids of the clusters folded. */
  folded: Signal<ReadonlySet<string>>;
}

/** Where the compact density is remembered, for this browser. */
const DENSITY_KEY = 'workshop-console-board-density';

export function storedCompact(): boolean {
  try {
    return localStorage.getItem(DENSITY_KEY) === 'compact';
  } catch {
    return false;
  }
}

/** `density`: whether the compact density may be switched (the Run tab's board is always compact). */
export function ViewTools(props: {
  view: ViewState;
  found: Searched;
  root: () => HTMLElement | null;
  density: boolean;
}) {
  const { view, found, root } = props;
  const columns: Column[] = found.columns;
  const jump = useRef<HTMLDetailsElement>(null);
  const setCompact = (compact: boolean) => {
    view.compact.value = compact;
    try {
      localStorage.setItem(DENSITY_KEY, compact ? 'compact' : 'comfortable');
    } catch {
      // Not remembered: the choice holds for this page.
    }
  };
  const goTo = (id: string) => {
    if (jump.current) jump.current.open = false;
    const cluster = root()?.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(id)}"]`);
    if (focusCard(cluster)) cluster!.scrollIntoView({ block: 'start' });
  };
  const query = view.query.value;
  return (
    <div class="board-view">
      <div class="board-search">
        <label for="board-search">{t('console.board.search.label')}</label>
        <input
          id="board-search"
          type="search"
          placeholder={t('console.board.search.placeholder')}
          value={query}
          aria-describedby="board-matches"
          onInput={(event) => (view.query.value = event.currentTarget.value)}
        />
      </div>
      <p id="board-matches" class="meta board-matches" role="status">
        {found.matches === null ? '' : matchText(found, query)}
      </p>
      {columns.length > 0 && (
        <details class="board-jump" ref={jump}>
          <summary>{t('console.board.jump')}</summary>
          <ol>
            {columns.map((column) => (
              <li key={column.head.id}>
                <button type="button" class="link" onClick={() => goTo(column.head.id)}>
                  {rich('console.board.jump_to', {
                    cluster: column.head.title.trim() || `#${column.head.short_id}`,
                    count: column.ideas.length,
                    meta: (words) => <span class="meta">{words}</span>,
                  })}
                </button>
              </li>
            ))}
          </ol>
        </details>
      )}
      {props.density && (
        <button type="button" aria-pressed={view.compact.value} onClick={() => setCompact(!view.compact.value)}>
          {t('console.board.compact')}
        </button>
      )}
      <button type="button" onClick={() => (view.folded.value = new Set(columns.map((column) => column.head.id)))}>
        {t('console.board.fold_all')}
      </button>
      <button type="button" onClick={() => (view.folded.value = new Set())}>
        {t('console.board.unfold_all')}
      </button>
    </div>
  );
}
