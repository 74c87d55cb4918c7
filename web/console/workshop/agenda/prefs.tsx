/*
 * A step's `prefs` (docs/api.md#who-may-do-what, #private-writing-and-anonymous-authors) in the
 * facilitator's words, grouped by what they decide: what participants may add, change, vote and
 * rate while the step is current, and what they see of each other's work.
 */
import type { ComponentChildren } from 'preact';
import type { Step } from 'workshop-sdk';
import { Radios } from '../../forms';
import { t } from '../../i18n';
import { Choose, said } from './choose';

export type Prefs = Step['prefs'];
type Flag = { [K in keyof Prefs]: Prefs[K] extends boolean ? K : never }[keyof Prefs];
type Scope = Prefs['allow_edit'];

// Each choice with the id of its words, said when the form is drawn (in the console's language).
const ADD = [
  ['allow_add_idea', 'console.agenda.prefs.add_idea'],
  ['allow_add_cluster', 'console.agenda.prefs.add_cluster'],
  ['allow_items', 'console.agenda.prefs.items'],
  ['allow_comment', 'console.agenda.prefs.comment'],
  ['allow_attachment', 'console.agenda.prefs.attachment'],
] as const satisfies ReadonlyArray<readonly [Flag, string]>;
const SCOPES = [
  ['none', 'console.agenda.prefs.scope.none'],
  ['their', 'console.agenda.prefs.scope.their'],
  ['all', 'console.agenda.prefs.scope.all'],
] as const satisfies ReadonlyArray<readonly [Scope, string]>;
const VISIBLE = [
  ['all', 'console.agenda.prefs.visible.all'],
  ['own', 'console.agenda.prefs.visible.own'],
] as const satisfies ReadonlyArray<readonly [Prefs['cards_visible'], string]>;
const AUTHORS = [
  ['shown', 'console.agenda.prefs.authors.shown'],
  ['hidden_from_participants', 'console.agenda.prefs.authors.hidden_from_participants'],
  ['hidden', 'console.agenda.prefs.authors.hidden'],
] as const satisfies ReadonlyArray<readonly [Prefs['authors'], string]>;

export function PrefsFields(props: { prefs: Prefs; onChange: (prefs: Prefs) => void }) {
  const { prefs } = props;
  const scopes = said(SCOPES);
  const set = <K extends keyof Prefs>(key: K, value: Prefs[K]) => props.onChange({ ...prefs, [key]: value });
  const check = (key: Flag, label: string) => (
    <label class="choice" key={key}>
      <input type="checkbox" checked={prefs[key]} onChange={(e) => set(key, e.currentTarget.checked)} />
      {label}
    </label>
  );
  return (
    <div class="prefs">
      <Group legend={t('console.agenda.prefs.may_add')}>{ADD.map(([key, label]) => check(key, t(label)))}</Group>
      <Group legend={t('console.agenda.prefs.may_change')}>
        <Choose
          inline
          label={t('console.agenda.prefs.edit')}
          options={scopes}
          value={prefs.allow_edit}
          onChange={(v) => set('allow_edit', v)}
        />
        <Choose
          inline
          label={t('console.common.delete')}
          options={scopes}
          value={prefs.allow_delete}
          onChange={(v) => set('allow_delete', v)}
        />
      </Group>
      <Group legend={t('console.agenda.prefs.voting')} hint={t('console.agenda.prefs.voting_hint')}>
        {check('allow_vote_on_ideas', t('console.agenda.prefs.vote_on_ideas'))}
        {check('allow_vote_on_clusters', t('console.agenda.prefs.vote_on_clusters'))}
      </Group>
      <Group legend={t('console.agenda.prefs.rating')} hint={t('console.agenda.prefs.rating_hint')}>
        {check('allow_rate', t('console.agenda.prefs.rate'))}
      </Group>
      <Group legend={t('console.agenda.prefs.see')}>
        <Radios
          legend={t('console.agenda.prefs.others_cards')}
          name="cards_visible"
          options={said(VISIBLE)}
          value={prefs.cards_visible}
          onChange={(value) => set('cards_visible', value)}
        />
        <Radios
          legend={t('console.agenda.prefs.who_wrote')}
          name="authors"
          options={said(AUTHORS)}
          value={prefs.authors}
          onChange={(value) => set('authors', value)}
        />
        {check('allow_display_votes', t('console.agenda.prefs.display_votes'))}
        {check('allow_display_ratings', t('console.agenda.prefs.display_ratings'))}
      </Group>
    </div>
  );
}

function Group(props: { legend: string; hint?: string; children: ComponentChildren }) {
  return (
    <fieldset class="group">
      <legend>{props.legend}</legend>
      {props.children}
      {props.hint && <p class="hint">{props.hint}</p>}
    </fieldset>
  );
}
