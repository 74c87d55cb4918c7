/*
 * A step's `prefs` (docs/api.md#who-may-do-what, #private-writing-and-anonymous-authors) in the
 * facilitator's words, grouped by what they decide: what participants may add, change, vote and
 * rate while the step is current, and what they see of each other's work.
 */
import type { ComponentChildren } from 'preact';
import type { Step } from 'workshop-sdk';
import { Radios } from '../../forms';
import { Choose } from './choose';

export type Prefs = Step['prefs'];
type Flag = { [K in keyof Prefs]: Prefs[K] extends boolean ? K : never }[keyof Prefs];
type Scope = Prefs['allow_edit'];

const ADD: Array<[Flag, string]> = [
  ['allow_add_idea', 'Ideas'],
  ['allow_add_cluster', 'Clusters (groups of ideas)'],
  ['allow_items', 'Items in a card’s sections'],
  ['allow_comment', 'Comments on cards'],
  ['allow_attachment', 'Files attached to cards'],
];
const SCOPES: Array<[Scope, string]> = [
  ['none', 'No cards'],
  ['their', 'Their own cards'],
  ['all', 'Everyone’s cards'],
];
const VISIBLE: Array<[Prefs['cards_visible'], string]> = [
  ['all', 'Everyone sees everyone’s cards'],
  ['own', 'Private writing: each participant sees only their own cards (and the facilitators’)'],
];
const AUTHORS: Array<[Prefs['authors'], string]> = [
  ['shown', 'Shown to everyone'],
  ['hidden_from_participants', 'Hidden from participants (facilitators still see them)'],
  ['hidden', 'Anonymous: hidden from everyone, facilitators and exports included'],
];

export function PrefsFields(props: { prefs: Prefs; onChange: (prefs: Prefs) => void }) {
  const { prefs } = props;
  const set = <K extends keyof Prefs>(key: K, value: Prefs[K]) => props.onChange({ ...prefs, [key]: value });
  const check = (key: Flag, label: string) => (
    <label class="choice" key={key}>
      <input type="checkbox" checked={prefs[key]} onChange={(e) => set(key, e.currentTarget.checked)} />
      {label}
    </label>
  );
  return (
    <div class="prefs">
      <Group legend="What participants may add">{ADD.map(([key, label]) => check(key, label))}</Group>
      <Group legend="What participants may change">
        <Choose inline label="Edit" options={SCOPES} value={prefs.allow_edit} onChange={(v) => set('allow_edit', v)} />
        <Choose
          inline
          label="Delete"
          options={SCOPES}
          value={prefs.allow_delete}
          onChange={(v) => set('allow_delete', v)}
        />
      </Group>
      <Group legend="Voting" hint="How many votes each person has is set for the whole workshop, under Settings.">
        {check('allow_vote_on_ideas', 'Vote on ideas')}
        {check('allow_vote_on_clusters', 'Vote on clusters')}
      </Group>
      <Group legend="Rating" hint="Cards are rated on the workshop’s criteria.">
        {check('allow_rate', 'Rate cards')}
      </Group>
      <Group legend="What participants see">
        <Radios
          legend="Others’ cards"
          name="cards_visible"
          options={VISIBLE}
          value={prefs.cards_visible}
          onChange={(value) => set('cards_visible', value)}
        />
        <Radios
          legend="Who wrote what (cards, comments and items written during this step)"
          name="authors"
          options={AUTHORS}
          value={prefs.authors}
          onChange={(value) => set('authors', value)}
        />
        {check('allow_display_votes', 'Everyone’s votes (otherwise each sees only their own)')}
        {check('allow_display_ratings', 'Everyone’s ratings (otherwise each sees only their own)')}
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
