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
import { t } from '../../i18n';
import { write } from '../../outbox';
import type { WorkshopScope } from '../context';
import { Modal } from './dialogs';
import { Feedback } from './feedback';
import type { OwnVotes } from './own-votes';
import { useSpotlight } from './spotlight';
import { cardColors, nameOf, type CardColor } from './model';

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
  const what =
    card.type === 'cluster'
      ? t('console.board.detail.cluster')
      : cluster
        ? t('console.board.detail.idea_in', { cluster: nameOf(cluster) })
        : t('console.board.detail.idea');
  const question =
    card.type === 'cluster' && props.ideas > 0
      ? t('console.board.detail.delete_cluster_question', { title: nameOf(card), ideas: props.ideas })
      : t('console.board.detail.delete_question', { title: nameOf(card) });
  // A list of facts about the card, not a sentence: each is a message of its own.
  const facts = [what, `#${card.short_id}`, ...(card.aside ? [t('console.board.figure.aside')] : [])];
  return (
    <Modal title={nameOf(card)} onClose={props.onClose} class="detail">
      <p class="meta">{facts.join(' · ')}</p>
      <EditCard key={card.id} workshopId={scope.id} card={card} />
      <div class="row-actions">
        <button type="button" aria-pressed={lit} onClick={() => void spotlight.put(scope, lit ? null : card.id)}>
          {t('console.board.spotlight')}
        </button>
        {card.aside ? (
          <button type="button" onClick={() => void setAside(false)}>
            {t('console.board.detail.bring_back')}
          </button>
        ) : (
          <button type="button" onClick={() => void setAside(true)}>
            {t('console.board.detail.set_aside')}
          </button>
        )}
        <ConfirmButton
          label={t('console.common.delete')}
          class="danger"
          question={question}
          confirm={t('console.common.delete_for_good')}
          onConfirm={remove}
        />
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
      saved.value = await write(t('console.board.detail.write', { title: nameOf(card) }), {
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
    <form class="form edit-card" aria-label={t('console.board.detail.edit')} onSubmit={onSubmit(save)}>
      <Field label={t('console.common.title')} value={title} action={action} name="title" required />
      <div class="field">
        <label for={contentId}>{t('console.board.detail.text')}</label>
        <textarea
          id={contentId}
          rows={3}
          value={content.value}
          onInput={(event) => (content.value = event.currentTarget.value)}
        />
      </div>
      {card.type === 'cluster' && (
        <div class="field">
          <label for={colorId}>{t('console.board.colour')}</label>
          <select
            id={colorId}
            value={color.value}
            onChange={(event) => (color.value = event.currentTarget.value as CardColor)}
          >
            {cardColors().map(([value, label]) => (
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
          {t('console.common.save')}
        </button>
        <span role="status" class="done">
          {saved.value === 'sent'
            ? t('console.common.saved')
            : saved.value === 'waiting'
              ? t('console.board.detail.waiting')
              : ''}
        </span>
      </p>
    </form>
  );
}
