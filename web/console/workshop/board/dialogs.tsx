/*
 * The board's dialogs for one card at a time: the modal frame they share, "Move to…" (a cluster
 * chosen from a list) and the merge of two ideas, asked for by a drop or by "Merge with…", which
 * says what merging does and lets the new card's title and text be changed first.
 */
import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import type { Card } from 'workshop-sdk';
import { api } from '../../api';
import { Field, Problem, onSubmit, useAction } from '../../forms';
import { t } from '../../i18n';
import { nameOf, type Column } from './model';

/**
 * A modal dialog (the browser's own: focus kept inside, Escape closes it), giving focus back to
 * what opened it when it closes.
 */
export function Modal(props: { title: string; onClose: () => void; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const gone = useRef(false);
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    return () => {
      gone.current = true;
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={`board-dialog ${props.class ?? ''}`}
      aria-labelledby={headingId}
      onClose={() => !gone.current && props.onClose()}
    >
      <div class="dialog-head">
        <h2 id={headingId}>{props.title}</h2>
        <button type="button" class="quiet" onClick={() => ref.current!.close()}>
          {t('console.common.close')}
        </button>
      </div>
      {props.children}
    </dialog>
  );
}

/** "Move to…": the idea goes to the end of the cluster chosen. */
export function MoveDialog(props: {
  card: Card;
  clusters: Card[];
  onMove: (parent: string) => void;
  onClose: () => void;
}) {
  const { card, clusters } = props;
  const parent = useSignal(card.parent ?? '');
  const id = useId();
  return (
    <Modal title={t('console.board.move.title', { title: nameOf(card) })} onClose={props.onClose}>
      <form class="form" onSubmit={onSubmit(() => props.onMove(parent.value))}>
        <div class="field">
          <label for={id}>{t('console.board.move.to')}</label>
          <select
            id={id}
            value={parent.value}
            autoFocus
            onChange={(event) => (parent.value = event.currentTarget.value)}
          >
            {clusters.map((cluster) => (
              <option key={cluster.id} value={cluster.id}>
                {cluster.id === card.parent
                  ? t('console.board.move.where_it_is', { name: nameOf(cluster) })
                  : nameOf(cluster)}
              </option>
            ))}
          </select>
          <p class="hint">{t('console.board.move.hint')}</p>
        </div>
        <p>
          <button type="submit" class="primary" disabled={parent.value === card.parent}>
            {t('console.board.move.submit')}
          </button>
        </p>
      </form>
    </Modal>
  );
}

/**
 * Merging `source` into `target` (chosen here when not given): one new card in the target's place
 * that takes both cards' votes, ratings, items, comments and attachments (docs/api.md#cards).
 */
export function MergeDialog(props: {
  workshopId: string;
  source: Card;
  target: Card | null;
  columns: Column[];
  onMerged: (merged: Card) => void;
  onClose: () => void;
}) {
  const { source, columns } = props;
  const targetId = useSignal(props.target?.id ?? '');
  const target = columns.flatMap((column) => column.ideas).find((idea) => idea.id === targetId.value) ?? null;
  const title = useSignal(props.target?.title ?? '');
  const content = useSignal(props.target?.content ?? '');
  const selectId = useId();
  const contentId = useId();
  const action = useAction();
  const choose = (id: string) => {
    targetId.value = id;
    const chosen = columns.flatMap((column) => column.ideas).find((idea) => idea.id === id);
    title.value = chosen?.title ?? '';
    content.value = chosen?.content ?? '';
  };
  const merge = () =>
    action.run(async () => {
      if (!target) return;
      const merged = await api.post('/v1/workshops/{workshop_id}/cards/merge', {
        params: { path: { workshop_id: props.workshopId } },
        body: { cards_id: [target.id, source.id], title: title.value, content: content.value },
      });
      props.onMerged(merged);
    });
  return (
    <Modal title={t('console.board.merge.title')} onClose={props.onClose}>
      <form class="form" onSubmit={onSubmit(merge)}>
        <div class="field">
          <label for={selectId}>{t('console.board.merge.with', { title: nameOf(source) })}</label>
          <select
            id={selectId}
            value={targetId.value}
            autoFocus={!props.target}
            onChange={(event) => choose(event.currentTarget.value)}
          >
            <option value="">{t('console.board.merge.choose')}</option>
            {columns.map((column) => (
              <optgroup key={column.head.id} label={nameOf(column.head)}>
                {column.ideas
                  .filter((idea) => idea.id !== source.id)
                  .map((idea) => (
                    <option key={idea.id} value={idea.id}>
                      {nameOf(idea)}
                    </option>
                  ))}
              </optgroup>
            ))}
          </select>
        </div>
        {target && <p class="hint">{t('console.board.merge.hint', { title: nameOf(target) })}</p>}
        <Field label={t('console.board.merge.title_field')} value={title} action={action} name="title" required />
        <div class="field">
          <label for={contentId}>{t('console.board.merge.text_field')}</label>
          <textarea
            id={contentId}
            rows={3}
            value={content.value}
            onInput={(event) => (content.value = event.currentTarget.value)}
          />
        </div>
        <Problem action={action} />
        <p class="row-actions">
          <button type="submit" class="primary" disabled={!target || action.busy.value} autoFocus={!!props.target}>
            {t('console.board.merge.submit')}
          </button>
          <button type="button" onClick={props.onClose}>
            {t('console.common.cancel')}
          </button>
        </p>
      </form>
    </Modal>
  );
}
