/*
 * A step's `view`: how the cards are shown while the step is current (the workshop takes it when
 * the step becomes current; docs/api.md#workshops). Cards and criteria named here must be the
 * workshop's, so they are picked from its live cards and its criteria.
 */
import type { Card, Criterion, View } from 'workshop-sdk';
import { t } from '../../i18n';
import { Choose, said, type Words } from './choose';

/** Each choice with the id of its words (said when drawn, in the console's language). */
type Options<T extends string> = ReadonlyArray<readonly [T, Words]>;

const SORTS = [
  ['position', 'console.agenda.view.sort.position'],
  ['random', 'console.agenda.view.sort.random'],
  ['score', 'console.agenda.view.sort.score'],
  ['criterium_average', 'console.agenda.view.sort.criterium_average'],
] as const satisfies Options<View['sort']>;
const SHOWS = [
  ['cards', 'console.agenda.view.show.cards'],
  ['bars', 'console.agenda.view.show.bars'],
  ['bubbles', 'console.agenda.view.show.bubbles'],
] as const satisfies Options<View['show']>;
const CLUSTERS = [
  ['all', 'console.agenda.view.clusters.all'],
  ['none', 'console.agenda.view.clusters.none'],
  ['multi', 'console.agenda.view.clusters.multi'],
] as const satisfies Options<View['show_clusters']>;
const STATUSES = [
  ['active', 'console.agenda.view.status.active'],
  ['aside', 'console.agenda.view.status.aside'],
  ['all', 'console.agenda.view.status.all'],
] as const satisfies Options<View['card_status']>;
/** The API's own words: it keeps `card_author` for the screens and gives it no further meaning. */
const AUTHORS = [
  ['all', 'console.agenda.view.author.all'],
  ['active', 'console.agenda.view.author.active'],
  ['other', 'console.agenda.view.author.other'],
] as const satisfies Options<View['card_author']>;
const SUB_VIEWS = [
  ['content', 'console.agenda.view.sub_view.content'],
  ['votes', 'console.agenda.view.sub_view.votes'],
  ['ratings-overall', 'console.agenda.view.sub_view.ratings_overall'],
  ['ratings-user', 'console.agenda.view.sub_view.ratings_user'],
] as const satisfies Options<View['card_sub_view']>;

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
      <Choose
        label={t('console.agenda.view.show_label')}
        options={said(SHOWS)}
        value={view.show}
        onChange={(v) => set('show', v)}
      />
      <Choose
        label={t('console.agenda.view.sort_label')}
        options={said(SORTS)}
        value={view.sort}
        onChange={(v) => set('sort', v)}
      />
      {view.sort === 'criterium_average' && (
        <Choose
          label={t('console.agenda.view.criterion_label')}
          options={[['', t('console.agenda.view.choose_criterion')], ...criteria.map((c) => [c.id, c.title] as const)]}
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
        {t('console.agenda.view.reverse')}
      </label>
      <Choose
        label={t('console.agenda.view.clusters_label')}
        options={said(CLUSTERS)}
        value={view.show_clusters}
        onChange={(v) => set('show_clusters', v)}
      />
      {view.show_clusters === 'multi' && (
        <fieldset class="radios">
          <legend>{t('console.agenda.view.clusters_to_show')}</legend>
          {clusters.length === 0 && <p class="empty">{t('console.agenda.view.no_clusters')}</p>}
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
      <Choose
        label={t('console.agenda.view.status_label')}
        options={said(STATUSES)}
        value={view.card_status}
        onChange={(v) => set('card_status', v)}
      />
      <Choose
        label={t('console.agenda.view.author_label')}
        options={said(AUTHORS)}
        value={view.card_author}
        onChange={(v) => set('card_author', v)}
      />
      <Choose
        label={t('console.agenda.view.card_label')}
        options={[
          ['', t('console.agenda.view.no_card')],
          ...cards.map(
            (card) =>
              [
                card.id,
                card.type === 'cluster' ? card.title : t('console.agenda.view.idea_option', { title: card.title }),
              ] as const,
          ),
        ]}
        value={view.card ?? ''}
        onChange={(id) => set('card', id || null)}
      />
      <Choose
        label={t('console.agenda.view.sub_view_label')}
        options={said(SUB_VIEWS)}
        value={view.card_sub_view}
        onChange={(v) => set('card_sub_view', v)}
      />
    </div>
  );
}
