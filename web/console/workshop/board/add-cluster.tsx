/*
 * The Board tab's form for a new cluster: through the outbox, so with the server away it waits
 * and is sent once the server is back.
 */
import { useSignal } from '@preact/signals';
import type { Card } from 'workshop-sdk';
import { Problem, onSubmit, useAction } from '../../forms';
import { write } from '../../outbox';
import { t } from '../../i18n';
import { cardColors, type CardColor } from './model';

/** The form for a new cluster: its title and colour (the first one no cluster has yet, to start with). */
export function AddCluster({ workshopId, cards }: { workshopId: string; cards: Card[] }) {
  const title = useSignal('');
  const chosen = useSignal<CardColor | ''>('');
  const action = useAction();
  const colors = cardColors();
  const used = new Set(cards.filter((card) => card.parent === null).map((card) => card.color));
  const color = chosen.value || (colors.find(([name]) => !used.has(name)) ?? colors[0]!)[0];
  const add = () =>
    action.run(async () => {
      await write(t('console.board.add_cluster.write', { title: title.value }), {
        method: 'post',
        path: '/v1/workshops/{workshop_id}/cards',
        params: { workshop_id: workshopId },
        body: { type: 'cluster', title: title.value, color },
      });
      title.value = '';
      chosen.value = '';
    });
  return (
    <form class="add-cluster" aria-label={t('console.board.add_cluster.label')} onSubmit={onSubmit(add)}>
      <label>
        {t('console.board.add_cluster.title')}
        <input required value={title.value} onInput={(e) => (title.value = e.currentTarget.value)} />
      </label>
      <label>
        {t('console.board.colour')}
        <select value={color} onChange={(e) => (chosen.value = e.currentTarget.value as CardColor)}>
          {colors.map(([name, label]) => (
            <option key={name} value={name}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="primary" disabled={action.busy.value}>
        {t('console.board.add_cluster.submit')}
      </button>
      <Problem action={action} />
    </form>
  );
}
