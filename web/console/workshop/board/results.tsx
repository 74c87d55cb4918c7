/*
 * The board's results: the ideas (or the clusters) the filter shows, ranked by their score (the
 * sum of their votes, all of them, as a facilitator sees them) or by their average rating on one
 * criterion, with every figure shown. Averages come from the criteria's ratings (a facilitator is
 * given the whole workshop's, docs/api.md#feedback-on-cards), read again after a rating changes.
 */
import { useSignal } from '@preact/signals';
import { useMemo } from 'preact/hooks';
import type { Card, Criterion } from 'workshop-sdk';
import { api } from '../../api';
import { Problem, useAction } from '../../forms';
import { rich, t } from '../../i18n';
import type { WorkshopScope } from '../context';
import { nameOf, type Column } from './model';
import { useReread } from './reread';

/** The changes after which the criteria and their ratings are read again. */
const TOUCHES_RATINGS = /Rating|Criteri|mergeCards|importCards|removeCard|card:deleted/;

/** A card no one rated on a criterion: a mark, the same in every language. */
const NONE = '—';

type Averages = Map<string, Map<string, { average: number; count: number }>>;

export function Results(props: { scope: WorkshopScope; columns: Column[]; onOpen: (card: Card) => void }) {
  const { scope, columns } = props;
  const criteria = useSignal<Criterion[]>([]);
  const sort = useSignal('score');
  const rank = useSignal<'idea' | 'cluster'>('idea');
  const load = useAction();
  useReread(
    scope,
    TOUCHES_RATINGS,
    load,
    async () => {
      criteria.value = await api.get('/v1/workshops/{workshop_id}/criteria', {
        params: { path: { workshop_id: scope.id } },
      });
    },
    [scope],
  );

  const averages = useMemo(() => averagesOf(criteria.value), [criteria.value]);
  const byCriterion = averages.get(sort.value);
  const rows = (rank.value === 'idea' ? columns.flatMap((column) => column.ideas) : columns.map((c) => c.head)).slice();
  const score = (card: Card) => card.summary.score ?? 0;
  // Sorting is stable: equal figures keep the board's order. Unrated cards come last.
  if (byCriterion) rows.sort((a, b) => (byCriterion.get(b.id)?.average ?? -1) - (byCriterion.get(a.id)?.average ?? -1));
  else rows.sort((a, b) => score(b) - score(a));
  const clusters = new Map(columns.map((column) => [column.head.id, column.head]));
  const sortedBy = criteria.value.find((criterion) => criterion.id === sort.value);

  return (
    <section class="results" aria-labelledby="results-title">
      <h2 id="results-title">{t('console.board.results.title')}</h2>
      <div class="filters">
        <label>
          {t('console.board.results.rank')}
          <select value={rank.value} onChange={(e) => (rank.value = e.currentTarget.value as 'idea' | 'cluster')}>
            <option value="idea">{t('console.board.results.ideas')}</option>
            <option value="cluster">{t('console.board.results.clusters')}</option>
          </select>
        </label>
        <label>
          {t('console.board.results.sort_by')}
          <select value={sort.value} onChange={(e) => (sort.value = e.currentTarget.value)}>
            <option value="score">{t('console.board.results.by_score')}</option>
            {criteria.value.map((criterion) => (
              <option key={criterion.id} value={criterion.id}>
                {t('console.board.results.by_average', { criterion: criterion.title })}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Problem action={load} />
      {rows.length === 0 ? (
        <p class="empty">{t('console.board.results.empty')}</p>
      ) : (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">
              {sortedBy
                ? t('console.board.results.caption_average', { rank: rank.value, criterion: sortedBy.title })
                : t('console.board.results.caption_score', { rank: rank.value })}
            </caption>
            <thead>
              <tr>
                <th scope="col">{t('console.board.results.rank_column')}</th>
                <th scope="col">
                  {rank.value === 'idea'
                    ? t('console.board.results.idea_column')
                    : t('console.board.results.cluster_column')}
                </th>
                {rank.value === 'idea' && <th scope="col">{t('console.board.results.cluster_column')}</th>}
                <th scope="col">{t('console.board.results.score_column')}</th>
                {criteria.value.map((criterion) => (
                  <th key={criterion.id} scope="col">
                    {rich('console.board.results.criterion_column', {
                      criterion: criterion.title,
                      scale: scaleText(criterion),
                      meta: (words) => <span class="meta">{words}</span>,
                    })}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((card, index) => (
                <tr key={card.id} data-card-id={card.id}>
                  <td>{index + 1}</td>
                  <th scope="row">
                    <button type="button" class="link card-title" onClick={() => props.onOpen(card)}>
                      {nameOf(card)}
                    </button>
                  </th>
                  {rank.value === 'idea' && <td>{nameOf(clusters.get(card.parent!) ?? card)}</td>}
                  <td class="score">{score(card)}</td>
                  {criteria.value.map((criterion) => {
                    const figure = averages.get(criterion.id)?.get(card.id);
                    return (
                      <td key={criterion.id}>
                        {figure ? (
                          rich('console.board.results.average_cell', {
                            average: figure.average,
                            count: figure.count,
                            meta: (words) => <span class="meta">{words}</span>,
                          })
                        ) : (
                          <span class="meta">{NONE}</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The range of a criterion's scale, as "0–10". */
export function scaleText(criterion: Pick<Criterion, 'current_scale'>): string {
  const values = criterion.current_scale;
  return values.length ? `${Math.min(...values)}–${Math.max(...values)}` : '';
}

/** For each criterion, each rated card's average and number of ratings. */
function averagesOf(criteria: Criterion[]): Averages {
  const averages: Averages = new Map();
  for (const criterion of criteria) {
    const sums = new Map<string, { sum: number; count: number }>();
    for (const rating of criterion.ratings) {
      const sum = sums.get(rating.card_id) ?? { sum: 0, count: 0 };
      sum.sum += rating.value;
      sum.count += 1;
      sums.set(rating.card_id, sum);
    }
    const figures = new Map<string, { average: number; count: number }>();
    for (const [card, { sum, count }] of sums) figures.set(card, { average: sum / count, count });
    averages.set(criterion.id, figures);
  }
  return averages;
}
