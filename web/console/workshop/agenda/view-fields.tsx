/*
 * A step's `view`: how the cards are shown while the step is current (the workshop takes it when
 * the step becomes current; docs/api.md#workshops). Cards and criteria named here must be the
 * workshop's, so they are picked from its live cards and its criteria.
 */
import type { Card, Criterion, View } from 'workshop-sdk';
import { Choose } from './choose';

type Options<T extends string> = Array<[T, string]>;

const SORTS: Options<View['sort']> = [
  ['position', 'In their order'],
  ['random', 'Shuffled'],
  ['score', 'By votes'],
  ['criterium_average', 'By a criterion’s average'],
];
const SHOWS: Options<View['show']> = [
  ['cards', 'Cards'],
  ['bars', 'Bars'],
  ['bubbles', 'Bubbles'],
];
const CLUSTERS: Options<View['show_clusters']> = [
  ['all', 'All clusters'],
  ['none', 'No clusters'],
  ['multi', 'Chosen clusters'],
];
const STATUSES: Options<View['card_status']> = [
  ['active', 'Cards in play (not set aside)'],
  ['aside', 'Cards set aside'],
  ['all', 'All cards'],
];
/** The API's own words: it keeps `card_author` for the screens and gives it no further meaning. */
const AUTHORS: Options<View['card_author']> = [
  ['all', 'All authors'],
  ['active', 'Active authors'],
  ['other', 'Other authors'],
];
const SUB_VIEWS: Options<View['card_sub_view']> = [
  ['content', 'Its text'],
  ['votes', 'Its votes'],
  ['ratings-overall', 'Its ratings, overall'],
  ['ratings-user', 'Its ratings, person by person'],
];

export function ViewFields(props: {
  view: View;
  cards: Card[];
  criteria: Criterion[];
  onChange: (view: View) => void;
}) {
  const { view, cards, criteria } = props;
  const set = <K extends keyof View>(key: K, value: View[K]) => props.onChange({ ...view, [key]: value });
  const clusters = cards.filter((card) => card.type === 'cluster');
  const chosen = new Set(view.show_cluster_ids);
  const toggle = (id: string, on: boolean) =>
    set(
      'show_cluster_ids',
      clusters.map((cluster) => cluster.id).filter((each) => (each === id ? on : chosen.has(each))),
    );
  return (
    <div class="view-fields">
      <Choose label="Draw the cards as" options={SHOWS} value={view.show} onChange={(v) => set('show', v)} />
      <Choose label="Order" options={SORTS} value={view.sort} onChange={(v) => set('sort', v)} />
      {view.sort === 'criterium_average' && (
        <Choose
          label="Criterion to order by"
          options={[['', 'Choose a criterion'], ...criteria.map((c) => [c.id, c.title] as const)]}
          value={view.sort_criterium_id ?? ''}
          onChange={(id) => set('sort_criterium_id', id || null)}
        />
      )}
      <label class="choice">
        <input
          type="checkbox"
          checked={view.sort_reverse}
          onChange={(e) => set('sort_reverse', e.currentTarget.checked)}
        />
        Reverse the order
      </label>
      <Choose
        label="Clusters"
        options={CLUSTERS}
        value={view.show_clusters}
        onChange={(v) => set('show_clusters', v)}
      />
      {view.show_clusters === 'multi' && (
        <fieldset class="radios">
          <legend>Clusters to show</legend>
          {clusters.length === 0 && <p class="empty">The workshop has no clusters yet.</p>}
          {clusters.map((cluster) => (
            <label class="choice" key={cluster.id}>
              <input
                type="checkbox"
                checked={chosen.has(cluster.id)}
                onChange={(e) => toggle(cluster.id, e.currentTarget.checked)}
              />
              {cluster.title}
            </label>
          ))}
        </fieldset>
      )}
      <Choose label="Which cards" options={STATUSES} value={view.card_status} onChange={(v) => set('card_status', v)} />
      <Choose label="Whose cards" options={AUTHORS} value={view.card_author} onChange={(v) => set('card_author', v)} />
      <Choose
        label="Card in the spotlight"
        options={[
          ['', 'None'],
          ...cards.map((card) => [card.id, card.type === 'cluster' ? card.title : `— ${card.title}`] as const),
        ]}
        value={view.card ?? ''}
        onChange={(id) => set('card', id || null)}
      />
      <Choose
        label="The spotlighted card shows"
        options={SUB_VIEWS}
        value={view.card_sub_view}
        onChange={(v) => set('card_sub_view', v)}
      />
    </div>
  );
}
