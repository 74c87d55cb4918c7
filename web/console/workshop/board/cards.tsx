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
import { write } from '../../outbox';
import { nameOf, sameProps } from './model';

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
        <Grip name={`cluster ${name}`} />
        <h3 id={`cluster-${head.id}`}>
          <button type="button" class="link card-title" data-act="open" data-nav tabIndex={-1}>
            {head.title}
          </button>
        </h3>
        <button
          type="button"
          class="quiet fold"
          data-act="fold"
          aria-label={`Ideas in ${name}`}
          aria-expanded={!folded}
          aria-controls={folded ? undefined : `ideas-${head.id}`}
        >
          {folded ? '▸' : '▾'}
        </button>
        <SpotlightButton lit={litId === head.id} describedBy={`cluster-${head.id}`} />
        <button type="button" class="quiet skip" data-act="skip">
          {props.last ? 'Back to the first cluster' : 'Next cluster'}
        </button>
        <span class="meta">
          {figures(head, [
            ...(litId === head.id ? ['In the spotlight'] : []),
            ...(head.aside ? ['Set aside'] : []),
            ideas.length === 1 ? '1 idea' : `${ideas.length} ideas`,
            ...(folded ? ['Folded'] : []),
          ])}
        </span>
      </div>
      {head.content && <p class="card-content">{head.content}</p>}
      {!folded && (
        <ol class="ideas" id={`ideas-${head.id}`} aria-labelledby={`cluster-${head.id}`}>
          {ideas.map((idea) => (
            <IdeaCard key={idea.id} card={idea} lit={idea.id === litId} />
          ))}
        </ol>
      )}
      {!folded && <AddIdea workshopId={props.workshopId} cluster={head} />}
    </li>
  );
});

export const IdeaCard = memo(function IdeaCard({ card, lit }: { card: Card; lit: boolean }) {
  const name = nameOf(card);
  return (
    <li class={`idea${card.aside ? ' aside' : ''}${lit ? ' lit' : ''}`} data-card-id={card.id} data-kind="idea">
      <Grip name={name} />
      <div class="idea-body">
        <button type="button" class="link card-title" data-act="open" data-nav tabIndex={-1} id={`title-${card.id}`}>
          {card.title}
        </button>
        {card.content && <p class="card-content">{card.content}</p>}
        <p class="meta">
          {figures(card, [...(lit ? ['In the spotlight'] : []), ...(card.aside ? ['Set aside'] : [])])}
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
            Move to…
          </button>
          <button
            type="button"
            class="quiet"
            data-act="merge"
            data-nav
            tabIndex={-1}
            aria-describedby={`title-${card.id}`}
          >
            Merge with…
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
      Spotlight
    </button>
  );
}

/** The handle a card is dragged by (any pointer) and picked up by with Space (board/keyboard.ts). */
function Grip({ name }: { name: string }) {
  return (
    <button
      type="button"
      class="grip"
      data-act="grab"
      data-nav
      tabIndex={-1}
      aria-label={`Pick up ${name}`}
      aria-describedby={GRAB_HELP_ID}
    >
      ⠿
    </button>
  );
}

/** `lead`, then the card's score and how many comments and files it has, as the facilitator sees them. */
function figures(card: Card, lead: string[]): string {
  const { score, comments, attachments } = card.summary;
  const parts = [...lead, `Score ${score ?? 0}`];
  if (comments > 0) parts.push(comments === 1 ? '1 comment' : `${comments} comments`);
  if (attachments > 0) parts.push(attachments === 1 ? '1 file' : `${attachments} files`);
  return parts.join(' · ');
}

/** A cluster's own small form for a new idea at the end of it. */
function AddIdea({ workshopId, cluster }: { workshopId: string; cluster: Card }) {
  const title = useSignal('');
  const action = useAction();
  const add = () =>
    action.run(async () => {
      // Through the outbox: with the server away it waits, and is sent once it is back.
      await write(`Idea “${title.value}” in ${nameOf(cluster)}`, {
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
        New idea in {nameOf(cluster)}
      </label>
      <input
        id={id}
        placeholder="New idea"
        required
        value={title.value}
        onInput={(event) => (title.value = event.currentTarget.value)}
      />
      {/* Enter in the field adds it: the button is for pointers, not one more tab stop per cluster. */}
      <button type="submit" tabIndex={-1} disabled={action.busy.value}>
        Add
      </button>
      <Problem action={action} />
    </form>
  );
}
