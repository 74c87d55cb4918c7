/*
 * The card in the spotlight, found by a search of the Run tab (run/view.tsx).
 */
import { useSignal } from '@preact/signals';
import { useId, useMemo } from 'preact/hooks';
import type { Card } from 'workshop-sdk';
import { cardMatcher } from '../board/view';
import { cardLabel } from '../board/model';
import type { PartProps } from './view-writes';
import { rich, t } from '../../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

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
      <h3>{t('console.run.spotlight.title')}</h3>
      <p class="run-lit" aria-live="polite">
        {view.card === null ? t('console.run.spotlight.none') : t('console.run.spotlight.lit', { card: litLabel })}
      </p>
      {view.card !== null && (
        <button type="button" disabled={change.busy.value} onClick={() => void write({ view: { card: null } })}>
          {t('console.run.spotlight.clear')}
        </button>
      )}
      {cards.length === 0 ? (
        <p class="empty">{t('console.run.spotlight.no_cards')}</p>
      ) : (
        <>
          <div class="run-field">
            <label for={`${id}-find`}>{t('console.run.spotlight.find')}</label>
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
            <ul class="run-matches plain" aria-label={t('console.run.spotlight.found')}>
              {matches.slice(0, MATCHES_SHOWN).map((card) => {
                const cluster = clusterOf(card);
                const where = cluster
                  ? t('console.run.spotlight.in_cluster', { cluster: cardLabel(cluster) })
                  : t('console.run.spotlight.is_cluster');
                return (
                  <li key={card.id}>
                    <button
                      type="button"
                      aria-pressed={view.card === card.id}
                      disabled={change.busy.value}
                      onClick={() => void write({ view: { card: card.id } })}
                    >
                      {rich('console.run.spotlight.choose', { card: cardLabel(card), hidden })}
                    </button>
                    <span class="meta"> {where}</span>
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
  if (matches === null) return t('console.run.spotlight.hint');
  if (matches.length === 0) return t('console.run.spotlight.no_match', { query: query.trim() });
  return matches.length > MATCHES_SHOWN
    ? t('console.run.spotlight.matches_first', { count: matches.length, shown: MATCHES_SHOWN })
    : t('console.run.spotlight.matches', { count: matches.length });
}
