/*
 * The forced view (docs/api.md#workshops): what the screen shows and, while participants follow
 * it (`force_sync`), what their devices show: a card in the spotlight, all clusters, none or the
 * chosen ones, and the order of the ideas. Each control writes the workshop's `view` at once; what
 * is shown is the live state's, so another facilitator's change shows here too.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId } from 'preact/hooks';
import type { Criterion } from 'workshop-sdk';
import { api } from '../../api';
import { Panel, Problem } from '../../forms';
import type { WorkshopScope } from '../context';
import { Spotlight } from './spotlight';
import { cardLabel } from '../board/model';
import { useViewWrites, type PartProps } from './view-writes';
import { t } from '../../i18n';

export function ViewControls({ scope }: { scope: WorkshopScope }) {
  const { view, forceSync, change, write } = useViewWrites(scope);
  return (
    <Panel title={t('console.run.view.title')} class="run-view">
      <label class="choice run-follow">
        <input
          type="checkbox"
          checked={forceSync}
          disabled={change.busy.value}
          onChange={(event) => void write({ force_sync: event.currentTarget.checked })}
        />
        {t('console.run.view.follow')}
      </label>
      <p class="hint">{forceSync ? t('console.run.view.following') : t('console.run.view.not_following')}</p>
      <Spotlight scope={scope} view={view} change={change} write={write} />
      <Clusters scope={scope} view={view} change={change} write={write} />
      <Sort scope={scope} view={view} change={change} write={write} />
      <Problem action={change} />
    </Panel>
  );
}

const CLUSTER_CHOICES = ['all', 'none', 'multi'] as const;

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
      <legend>{t('console.run.view.clusters')}</legend>
      {CLUSTER_CHOICES.map((value) => (
        <label key={value} class="choice">
          <input
            type="radio"
            name="show-clusters"
            value={value}
            checked={view.show_clusters === value}
            disabled={change.busy.value}
            onChange={() => void write({ view: { show_clusters: value } })}
          />
          {t('console.run.view.cluster_choice', { choice: value })}
        </label>
      ))}
      {view.show_clusters === 'multi' &&
        (clusters.length === 0 ? (
          <p class="empty">{t('console.run.view.no_clusters')}</p>
        ) : (
          <ul class="run-cluster-list" aria-label={t('console.run.view.clusters_to_show')}>
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
        <label for={`${id}-sort`}>{t('console.run.view.order')}</label>
        <select
          id={`${id}-sort`}
          value={current}
          disabled={change.busy.value}
          onChange={(event) => void choose(event.currentTarget.value)}
        >
          <option value="position">{t('console.run.view.sort.position')}</option>
          <option value="score">{t('console.run.view.sort.score')}</option>
          {criteria.map((criterion) => (
            <option key={criterion.id} value={`criterion:${criterion.id}`}>
              {t('console.run.view.sort.criterion', { criterion: criterion.title })}
            </option>
          ))}
          <option value="random">{t('console.run.view.sort.random')}</option>
        </select>
      </div>
      <label class="choice">
        <input
          type="checkbox"
          checked={view.sort_reverse}
          disabled={change.busy.value}
          onChange={(event) => void write({ view: { sort_reverse: event.currentTarget.checked } })}
        />
        {t('console.run.view.reverse')}
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
