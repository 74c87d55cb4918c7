/*
 * One card opened from the board: its title, text and (for a cluster) colour edited, set aside or
 * brought back, deleted after a confirmation, and what people gave it (board/feedback.tsx). The
 * card shown is the live one, so a change made elsewhere shows while it is open.
 */
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import type { Card } from 'workshop-sdk';
import { api } from '../../api';
import { ConfirmButton, Field, Problem, onSubmit, useAction } from '../../forms';
import { write } from '../../outbox';
import type { WorkshopScope } from '../context';
import { Modal } from './dialogs';
import { Feedback } from './feedback';
import type { OwnVotes } from './own-votes';
import { useSpotlight } from './spotlight';
import { CARD_COLORS, nameOf, type CardColor } from './model';

export function CardDetail(props: {
  scope: WorkshopScope;
  card: Card;
  cluster: Card | null;
  ideas: number;
  own: OwnVotes | null;
  onClose: () => void;
}) {
  const { scope, card, cluster } = props;
  const change = useAction();
  const spotlight = useSpotlight();
  const lit = scope.state.value.view.card === card.id;
  const path = { params: { path: { workshop_id: scope.id, id: card.id } } };
  const setAside = (aside: boolean) =>
    change.run(() => api.put('/v1/workshops/{workshop_id}/cards/{id}', { ...path, body: { aside } }));
  const remove = () =>
    change.run(async () => {
      await api.delete('/v1/workshops/{workshop_id}/cards/{id}', path);
      props.onClose();
    });
  const what = card.type === 'cluster' ? 'Cluster' : `Idea in ${cluster ? nameOf(cluster) : 'a cluster'}`;
  const question =
    card.type === 'cluster' && props.ideas > 0
      ? `Delete the cluster “${nameOf(card)}” and its ${props.ideas === 1 ? 'idea' : `${props.ideas} ideas`}?`
      : `Delete “${nameOf(card)}”?`;
  return (
    <Modal title={nameOf(card)} onClose={props.onClose} class="detail">
      <p class="meta">
        {what} · #{card.short_id}
        {card.aside ? ' · Set aside' : ''}
      </p>
      <EditCard key={card.id} workshopId={scope.id} card={card} />
      <div class="row-actions">
        <button type="button" aria-pressed={lit} onClick={() => void spotlight.put(scope, lit ? null : card.id)}>
          Spotlight
        </button>
        {card.aside ? (
          <button type="button" onClick={() => void setAside(false)}>
            Bring back
          </button>
        ) : (
          <button type="button" onClick={() => void setAside(true)}>
            Set aside
          </button>
        )}
        <ConfirmButton label="Delete" class="danger" question={question} confirm="Delete for good" onConfirm={remove} />
      </div>
      <Problem action={change} />
      <Problem action={spotlight.action} />
      <Feedback scope={scope} card={card} own={props.own} />
    </Modal>
  );
}

/** The card's title, text and, for a cluster, colour, saved together. */
function EditCard({ workshopId, card }: { workshopId: string; card: Card }) {
  const title = useSignal(card.title);
  const content = useSignal(card.content);
  const color = useSignal<CardColor>(card.color ?? 'gray');
  const saved = useSignal<'sent' | 'waiting' | null>(null);
  const action = useAction();
  const contentId = useId();
  const colorId = useId();
  const save = () =>
    action.run(async () => {
      saved.value = null;
      // Through the outbox: with the server away the change waits, and is sent once it is back.
      saved.value = await write(`Changes to “${nameOf(card)}”`, {
        method: 'put',
        path: '/v1/workshops/{workshop_id}/cards/{id}',
        params: { workshop_id: workshopId, id: card.id },
        body: {
          title: title.value,
          content: content.value,
          ...(card.type === 'cluster' && { color: color.value }),
        },
      });
    });
  return (
    <form class="form edit-card" aria-label="Edit the card" onSubmit={onSubmit(save)}>
      <Field label="Title" value={title} action={action} name="title" required />
      <div class="field">
        <label for={contentId}>Text</label>
        <textarea
          id={contentId}
          rows={3}
          value={content.value}
          onInput={(event) => (content.value = event.currentTarget.value)}
        />
      </div>
      {card.type === 'cluster' && (
        <div class="field">
          <label for={colorId}>Colour</label>
          <select
            id={colorId}
            value={color.value}
            onChange={(event) => (color.value = event.currentTarget.value as CardColor)}
          >
            {CARD_COLORS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
      )}
      <Problem action={action} />
      <p class="row-actions">
        <button type="submit" class="primary" disabled={action.busy.value}>
          Save
        </button>
        <span role="status" class="done">
          {saved.value === 'sent'
            ? 'Saved.'
            : saved.value === 'waiting'
              ? 'Waiting for the server: saved once it is back.'
              : ''}
        </span>
      </p>
    </form>
  );
}
