/*
 * The parts of the participant page's frame drawn apart from the cards: the lobby's waiting view
 * and the forms that add ideas and clusters. Each keeps what it last drew, to touch the DOM only
 * when that changed.
 */
import type { WorkshopState } from 'workshop-sdk/live';
import { t } from '../shared/i18n';
import { setText } from './card-dom';

export const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export class LobbyView {
  /** The names listed, as last drawn. */
  private names = '';

  /** The waiting view of the lobby: that the workshop has not started, and who is here meanwhile. */
  draw(state: WorkshopState, lobby: boolean, me: string): void {
    byId('lobby').hidden = !lobby;
    if (!lobby) return;
    const { users, count } = state.presence;
    const names = users.map((user) =>
      user.id === me
        ? t('participant.frame.lobby_you', { name: user.name })
        : user.guest
          ? t('participant.frame.lobby_guest', { name: user.name })
          : user.name,
    );
    if (JSON.stringify(names) !== this.names) {
      this.names = JSON.stringify(names);
      byId('lobby-people').replaceChildren(
        ...names.map((name) => {
          const item = document.createElement('li');
          item.textContent = name;
          return item;
        }),
      );
    }
    const more = count - users.length;
    byId('lobby-more').hidden = more <= 0;
    setText(byId('lobby-more'), t('participant.frame.lobby_more', { count: more }));
  }
}

/** The forms adding an idea (to a cluster chosen from a list) and a cluster, as the step allows. */
export class AddForms {
  /** The clusters offered, as last drawn. */
  private options = '';

  draw(state: WorkshopState, addIdea: boolean, addCluster: boolean): void {
    byId('add').hidden = !addIdea && !addCluster;
    byId('idea-form').hidden = !addIdea;
    byId('cluster-form').hidden = !addCluster;
    const clusters = state.cards.filter((card) => card.type === 'cluster');
    const select = byId<HTMLSelectElement>('idea-cluster');
    const options = JSON.stringify(clusters.map(({ id, title }) => [id, title]));
    if (options !== this.options) {
      this.options = options;
      const chosen = select.value;
      select.replaceChildren(
        ...clusters.map((cluster) => {
          const option = document.createElement('option');
          option.value = cluster.id;
          option.textContent = cluster.title;
          return option;
        }),
      );
      if (clusters.some(({ id }) => id === chosen)) select.value = chosen;
    }
    const none = clusters.length === 0;
    select.disabled = none;
    byId('idea-hint').hidden = !none;
    byId<HTMLButtonElement>('idea-form-button').setAttribute('aria-disabled', String(none));
  }
}
