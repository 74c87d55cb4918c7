/*
 * The forced view (docs/api.md#workshops): what the screen shows and, while participants follow
 * it (`force_sync`), what their devices show: a card in the spotlight, all clusters, none or the
 * chosen ones, and the order of the ideas. Each control writes the workshop's `view` at once; what
 * is shown is the live state's, so another facilitator's change shows here too.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId, useMemo, useRef } from 'preact/hooks';
import type { Card, Criterion, View, paths } from 'workshop-sdk';
import { api } from '../../api';
import { Panel, Problem, useAction, type Action } from '../../forms';
import { cardMatcher } from '../board/view';
import type { WorkshopScope } from '../context';

type ViewChange = NonNullable<paths['/v1/workshops/{id}']['put']['requestBody']['content']['application/json']['view']>;
type WorkshopChange = { view: ViewChange } | { force_sync: boolean };

/** What a card is called in a list: its title, else the start of its text, else its short id. */
function cardLabel(card: Card): string {
  const words = card.title.trim() || card.content.trim().slice(0, 80);
  return words || `#${card.short_id}`;
}

export function ViewControls({ scope }: { scope: WorkshopScope }) {
  const { view, forceSync, change, write } = useViewWrites(scope);
  return (
    <Panel title="What the screen shows" class="run-view">
      <label class="choice run-follow">
        <input
          type="checkbox"
          checked={forceSync}
          disabled={change.busy.value}
          onChange={(event) => void write({ force_sync: event.currentTarget.checked })}
        />
        Participants follow this screen
      </label>
      <p class="hint">
        {forceSync
          ? 'Participants’ devices show what you set here.'
          : 'Each participant sees the current step’s own view; the screen shows what you set here.'}
      </p>
      <Spotlight scope={scope} view={view} change={change} write={write} />
      <Clusters scope={scope} view={view} change={change} write={write} />
      <Sort scope={scope} view={view} change={change} write={write} />
      <Problem action={change} />
    </Panel>
  );
}

/**
 * The view as the live state has it, with the change being written shown already: a box ticked
 * stays ticked while its write travels (the live state would redraw it as it was until the change
 * comes back as `view:changed`), and goes back if the write is refused.
 */
function useViewWrites(scope: WorkshopScope) {
  const live = scope.state.value;
  const change = useAction();
  const pending = useSignal<WorkshopChange | null>(null);
  const heard = useRef(false);
  useEffect(
    () =>
      scope.live.on('view:changed', () => {
        heard.current = true;
        if (!change.busy.value) pending.value = null;
      }),
    [scope],
  );
  const write = async (body: WorkshopChange) => {
    if (change.busy.value) return;
    pending.value = body;
    heard.current = false;
    const ok = await change.run(() => api.put('/v1/workshops/{id}', { params: { path: { id: scope.id } }, body }));
    // A write that changed nothing sends no event: nothing is left waiting for one.
    if (!ok || heard.current || unchanged(scope, body)) pending.value = null;
  };
  const wanted = pending.value;
  return {
    view: wanted && 'view' in wanted ? { ...live.view, ...wanted.view } : live.view,
    forceSync: wanted && 'force_sync' in wanted ? wanted.force_sync : live.forceSync,
    change,
    write,
  };
}

function unchanged(scope: WorkshopScope, body: WorkshopChange): boolean {
  const { view, forceSync } = scope.state.value;
  if ('force_sync' in body) return body.force_sync === forceSync;
  return Object.entries(body.view).every(
    ([key, value]) => JSON.stringify(view[key as keyof View]) === JSON.stringify(value),
  );
}

interface PartProps {
  scope: WorkshopScope;
  view: View;
  change: Action;
  write: (body: WorkshopChange) => unknown;
}

/** How many cards a spotlight search lists at most: the rest are narrowed by typing more. */
const MATCHES_SHOWN = 8;

/**
 * One card in front of everyone (`view.card`), found by a search of the cards as they are now (its
 * words, or `#12` for its short id): at 500 cards a list of every card is no way to find one. The
 * board and a card's detail put a card in the spotlight too.
 */
function Spotlight({ scope, view, change, write }: PartProps) {
  const cards = scope.state.value.cards;
  const query = useSignal('');
  const lit = view.card === null ? undefined : cards.find((card) => card.id === view.card);
  const litLabel = lit ? cardLabel(lit) : '…';
  const matches = useMemo(() => {
    const matcher = cardMatcher(query.value, () => '');
    return matcher ? cards.filter(matcher) : null;
  }, [cards, query.value]);
  const clusterOf = (card: Card) => (card.parent === null ? null : cards.find((each) => each.id === card.parent));
  const id = useId();
  return (
    <div class="run-spotlight">
      <h3>Spotlight</h3>
      <p class="run-lit" aria-live="polite">
        {view.card === null ? 'No card is in the spotlight.' : `In the spotlight: “${litLabel}”`}
      </p>
      {view.card !== null && (
        <button type="button" disabled={change.busy.value} onClick={() => void write({ view: { card: null } })}>
          Clear the spotlight
        </button>
      )}
      {cards.length === 0 ? (
        <p class="empty">There are no cards yet.</p>
      ) : (
        <>
          <div class="run-field">
            <label for={`${id}-find`}>Find a card to spotlight</label>
            <input
              id={`${id}-find`}
              type="search"
              autocomplete="off"
              aria-describedby={`${id}-found`}
              value={query.value}
              onInput={(event) => (query.value = event.currentTarget.value)}
            />
          </div>
          <p id={`${id}-found`} class="hint" role="status">
            {matchesText(matches, query.value)}
          </p>
          {matches && matches.length > 0 && (
            <ul class="run-matches plain" aria-label="Cards found">
              {matches.slice(0, MATCHES_SHOWN).map((card) => {
                const cluster = clusterOf(card);
                return (
                  <li key={card.id}>
                    <button
                      type="button"
                      aria-pressed={view.card === card.id}
                      disabled={change.busy.value}
                      onClick={() => void write({ view: { card: card.id } })}
                    >
                      <span class="visually-hidden">Spotlight </span>
                      {cardLabel(card)}
                    </button>
                    <span class="meta">{cluster ? ` in ${cardLabel(cluster)}` : ' (cluster)'}</span>
                  </li>
                );
              })}
            </ul>
          )}
        </>
      )}
    </div>
  );
}

function matchesText(matches: Card[] | null, query: string): string {
  if (matches === null) return 'Type words of the card, or its number as #12.';
  if (matches.length === 0) return `No card matches “${query.trim()}”.`;
  const count = matches.length === 1 ? '1 card matches' : `${matches.length} cards match`;
  return matches.length > MATCHES_SHOWN ? `${count}: the first ${MATCHES_SHOWN} are listed.` : `${count}.`;
}

const CLUSTER_CHOICES = [
  ['all', 'All clusters'],
  ['none', 'No clusters, the ideas alone'],
  ['multi', 'Chosen clusters'],
] as const;

/** All clusters, none (the ideas alone) or the chosen ones (`show_clusters`, `show_cluster_ids`). */
function Clusters({ scope, view, change, write }: PartProps) {
  const clusters = scope.state.value.cards.filter((card) => card.type === 'cluster' && card.parent === null);
  const chosen = new Set(view.show_cluster_ids);
  const toggle = (id: string, on: boolean) => {
    const ids = clusters.map((cluster) => cluster.id).filter((each) => (each === id ? on : chosen.has(each)));
    return write({ view: { show_clusters: 'multi', show_cluster_ids: ids } });
  };
  return (
    <fieldset class="run-clusters">
      <legend>Clusters shown</legend>
      {CLUSTER_CHOICES.map(([value, label]) => (
        <label key={value} class="choice">
          <input
            type="radio"
            name="show-clusters"
            value={value}
            checked={view.show_clusters === value}
            disabled={change.busy.value}
            onChange={() => void write({ view: { show_clusters: value } })}
          />
          {label}
        </label>
      ))}
      {view.show_clusters === 'multi' &&
        (clusters.length === 0 ? (
          <p class="empty">There are no clusters yet.</p>
        ) : (
          <ul class="run-cluster-list" aria-label="Clusters to show">
            {clusters.map((cluster) => (
              <li key={cluster.id}>
                <label class={`choice run-cluster color-${cluster.color ?? 'gray'}`}>
                  <input
                    type="checkbox"
                    checked={chosen.has(cluster.id)}
                    disabled={change.busy.value}
                    onChange={(event) => void toggle(cluster.id, event.currentTarget.checked)}
                  />
                  {cardLabel(cluster)}
                </label>
              </li>
            ))}
          </ul>
        ))}
    </fieldset>
  );
}

/** The order of the ideas: their places, votes (`score`), a criterion's average rating, or random. */
function Sort({ scope, view, change, write }: PartProps) {
  const criteria = useCriteria(scope);
  const id = useId();
  const current =
    view.sort === 'criterium_average' && view.sort_criterium_id ? `criterion:${view.sort_criterium_id}` : view.sort;
  const choose = (value: string) => {
    if (value.startsWith('criterion:'))
      return write({ view: { sort: 'criterium_average', sort_criterium_id: value.slice('criterion:'.length) } });
    return write({ view: { sort: value as 'position' | 'score' | 'random' } });
  };
  return (
    <div class="run-sort">
      <div class="run-field">
        <label for={`${id}-sort`}>Order of the ideas</label>
        <select
          id={`${id}-sort`}
          value={current}
          disabled={change.busy.value}
          onChange={(event) => void choose(event.currentTarget.value)}
        >
          <option value="position">As placed on the board</option>
          <option value="score">By votes</option>
          {criteria.map((criterion) => (
            <option key={criterion.id} value={`criterion:${criterion.id}`}>
              By average “{criterion.title}”
            </option>
          ))}
          <option value="random">Shuffled</option>
        </select>
      </div>
      <label class="choice">
        <input
          type="checkbox"
          checked={view.sort_reverse}
          disabled={change.busy.value}
          onChange={(event) => void write({ view: { sort_reverse: event.currentTarget.checked } })}
        />
        Reverse the order
      </label>
    </div>
  );
}

/**
 * The criteria to sort by: the live state holds them as the session loaded them, so they are read
 * again when one is added, renamed or removed.
 */
function useCriteria(scope: WorkshopScope): Pick<Criterion, 'id' | 'title'>[] {
  const read = useSignal<Pick<Criterion, 'id' | 'title'>[] | null>(null);
  useEffect(() => {
    let closed = false;
    const reread = () =>
      api.get('/v1/workshops/{workshop_id}/criteria', { params: { path: { workshop_id: scope.id } } }).then(
        (criteria) => {
          if (!closed) read.value = criteria;
        },
        () => undefined,
      );
    const stop = scope.onChange((action) => {
      if (/Criteri/.test(action)) void reread();
    });
    return () => {
      closed = true;
      stop();
    };
  }, [scope]);
  return read.value ?? scope.state.value.workshop.criteria;
}
