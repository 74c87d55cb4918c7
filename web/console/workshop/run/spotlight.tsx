/*
 * The card in the spotlight, found by a search of the Run tab (run/view.tsx).
 */
import { useSignal } from '@preact/signals';
import { useId, useMemo } from 'preact/hooks';
import type { Card } from 'workshop-sdk';
import { cardMatcher } from '../board/view';
import { cardLabel } from '../board/model';
import type { PartProps } from './view-writes';

/** How many cards a spotlight search lists at most: the rest are narrowed by typing more. */
const MATCHES_SHOWN = 8;

/**
 * One card in front of everyone (`view.card`), found by a search of the cards as they are now (its
 * words, or `#12` for its short id): at 500 cards a list of every card is no way to find one. The
 * board and a card's detail put a card in the spotlight too.
 */
export function Spotlight({ scope, view, change, write }: PartProps) {
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
