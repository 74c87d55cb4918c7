/*
 * A cluster and its ideas as the board draws them. Controls are named by attributes, not hidden
 * text, so each title is in the page's text once; an idea's "Move to…" and "Merge with…" are
 * described by its title. These hold no handlers and read no signal:
 * the board listens once, on its container, for the buttons' `data-act` and the cards'
 * `data-card-id` (board/gestures.ts), so each card is plain markup that redraws only when its own
 * card object changes (the live state keeps the objects of cards an event did not touch). A card's
 * controls are out of the tab order but one, and reached by the arrow keys (board/roving.ts).
 */
import { useSignal } from '@preact/signals';
import { Component, type VNode } from 'preact';
import type { Card } from 'workshop-sdk';
import { Problem, onSubmit, useAction } from '../../forms';
import { t } from '../../i18n';
import { write } from '../../outbox';
import { nameOf, sameProps } from './model';

/** Marks, not words: the same in every language (a folded cluster's arrow turns in RTL, scale.css). */
const FOLDED = '▸';
const UNFOLDED = '▾';
const GRIP = '⠿';

/** The id of the paragraph that tells how to move a card with the keyboard (the grips point at it). */
export const GRAB_HELP_ID = 'board-grab-help';

/** A component that redraws only when a prop changes (arrays compared item by item). */
function memo<P extends Record<string, unknown>>(render: (props: P) => VNode) {
  return class Memo extends Component<P> {
    override shouldComponentUpdate(next: P) {
      return !sameProps(this.props, next);
    }
    override render() {
      return render(this.props);
    }
  };
}

export const ClusterColumn = memo(function ClusterColumn(props: {
  head: Card;
  ideas: Card[];
  workshopId: string;
  folded: boolean;
  last: boolean;
  /** The card in the spotlight when it is this cluster or one of its ideas, else null (no redraw). */
  litId: string | null;
  /** The console's language: a change redraws the cards, which skip redraws otherwise. */
  language: string;
}) {
  const { head, ideas, folded, litId } = props;
  const name = nameOf(head);
  return (
    <li
      class={`cluster color-${head.color ?? 'gray'}${head.aside ? ' aside' : ''}${folded ? ' folded' : ''}${litId === head.id ? ' lit' : ''}`}
      data-card-id={head.id}
      data-kind="cluster"
    >
      <div class="cluster-head">
        <Grip label={t('console.board.pick_up_cluster', { name })} />
        <h3 id={`cluster-${head.id}`}>
          <button type="button" class="link card-title" data-act="open" data-nav tabIndex={-1}>
            {head.title}
          </button>
        </h3>
        <button
          type="button"
          class="quiet fold"
          data-act="fold"
          aria-label={t('console.board.fold', { name })}
          aria-expanded={!folded}
          aria-controls={folded ? undefined : `ideas-${head.id}`}
        >
          {folded ? FOLDED : UNFOLDED}
        </button>
        <SpotlightButton lit={litId === head.id} describedBy={`cluster-${head.id}`} />
        <button type="button" class="quiet skip" data-act="skip">
          {props.last ? t('console.board.skip_first') : t('console.board.skip_next')}
        </button>
        <span class="meta">
          {figures(head, [
            ...(litId === head.id ? [t('console.board.figure.lit')] : []),
            ...(head.aside ? [t('console.board.figure.aside')] : []),
            t('console.board.figure.ideas', { count: ideas.length }),
            ...(folded ? [t('console.board.figure.folded')] : []),
          ])}
        </span>
      </div>
      {head.content && <p class="card-content">{head.content}</p>}
      {!folded && (
        <ol class="ideas" id={`ideas-${head.id}`} aria-labelledby={`cluster-${head.id}`}>
          {ideas.map((idea) => (
            <IdeaCard key={idea.id} card={idea} lit={idea.id === litId} language={props.language} />
          ))}
        </ol>
      )}
      {!folded && <AddIdea workshopId={props.workshopId} cluster={head} />}
    </li>
  );
});

export const IdeaCard = memo(function IdeaCard({ card, lit }: { card: Card; lit: boolean; language: string }) {
  const name = nameOf(card);
  return (
    <li class={`idea${card.aside ? ' aside' : ''}${lit ? ' lit' : ''}`} data-card-id={card.id} data-kind="idea">
      <Grip label={t('console.board.pick_up', { name })} />
      <div class="idea-body">
        <button type="button" class="link card-title" data-act="open" data-nav tabIndex={-1} id={`title-${card.id}`}>
          {card.title}
        </button>
        {card.content && <p class="card-content">{card.content}</p>}
        <p class="meta">
          {figures(card, [
            ...(lit ? [t('console.board.figure.lit')] : []),
            ...(card.aside ? [t('console.board.figure.aside')] : []),
          ])}
        </p>
        <div class="idea-actions">
          <button
            type="button"
            class="quiet"
            data-act="move"
            data-nav
            tabIndex={-1}
            aria-describedby={`title-${card.id}`}
          >
            {t('console.board.move_to')}
          </button>
          <button
            type="button"
            class="quiet"
            data-act="merge"
            data-nav
            tabIndex={-1}
            aria-describedby={`title-${card.id}`}
          >
            {t('console.board.merge_with')}
          </button>
          <SpotlightButton lit={lit} describedBy={`title-${card.id}`} />
        </div>
      </div>
    </li>
  );
});

/**
 * Puts the card in front of everyone (the workshop's `view.card`), or takes it out again: pressed
 * while the card is in the spotlight.
 */
function SpotlightButton({ lit, describedBy }: { lit: boolean; describedBy: string }) {
  return (
    <button
      type="button"
      class="quiet"
      data-act="spotlight"
      data-nav
      tabIndex={-1}
      aria-pressed={lit}
      aria-describedby={describedBy}
    >
      {t('console.board.spotlight')}
    </button>
  );
}

/** The handle a card is dragged by (any pointer) and picked up by with Space (board/keyboard.ts). */
function Grip({ label }: { label: string }) {
  return (
    <button
      type="button"
      class="grip"
      data-act="grab"
      data-nav
      tabIndex={-1}
      aria-label={label}
      aria-describedby={GRAB_HELP_ID}
    >
      {GRIP}
    </button>
  );
}

/** `lead`, then the card's score and how many comments and files it has, as the facilitator sees them. */
function figures(card: Card, lead: string[]): string {
  const { score, comments, attachments } = card.summary;
  const parts = [...lead, t('console.board.figure.score', { score: score ?? 0 })];
  if (comments > 0) parts.push(t('console.board.figure.comments', { count: comments }));
  if (attachments > 0) parts.push(t('console.board.figure.files', { count: attachments }));
  return parts.join(' · ');
}

/** A cluster's own small form for a new idea at the end of it. */
function AddIdea({ workshopId, cluster }: { workshopId: string; cluster: Card }) {
  const title = useSignal('');
  const action = useAction();
  const add = () =>
    action.run(async () => {
      // Through the outbox: with the server away it waits, and is sent once it is back.
      await write(t('console.board.add_idea.write', { title: title.value, cluster: nameOf(cluster) }), {
        method: 'post',
        path: '/v1/workshops/{workshop_id}/cards',
        params: { workshop_id: workshopId },
        body: { type: 'idea', title: title.value, parent: cluster.id },
      });
      title.value = '';
    });
  const id = `new-idea-${cluster.id}`;
  return (
    <form class="add-idea" onSubmit={onSubmit(add)}>
      <label for={id} class="visually-hidden">
        {t('console.board.add_idea.label', { cluster: nameOf(cluster) })}
      </label>
      <input
        id={id}
        placeholder={t('console.board.add_idea.placeholder')}
        required
        value={title.value}
        onInput={(event) => (title.value = event.currentTarget.value)}
      />
      {/* Enter in the field adds it: the button is for pointers, not one more tab stop per cluster. */}
      <button type="submit" tabIndex={-1} disabled={action.busy.value}>
        {t('console.board.add_idea.submit')}
      </button>
      <Problem action={action} />
    </form>
  );
}
