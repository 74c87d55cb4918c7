import type { Card } from 'workshop-sdk';
import { element, setRefused, setText } from './card-dom';
import type { CardFrame } from './card-frame';
import { t } from '../shared/i18n';
import type { Direction } from '../shared/votes';

/*
 * A card's − and + buttons with the person's points between them, and the line saying why a press
 * would be refused or how many points this card can still take.
 */

export class CardVoteControls {
  readonly group = element('div', 'vote');
  private readonly minus = element('button', 'vote-button minus', '−');
  private readonly mine = element('span', 'mine');
  private readonly plus = element('button', 'vote-button plus', '+');
  private readonly note = element('p', 'vote-note');
  private readonly minusWhy = element('span', 'visually-hidden');

  /** `press` runs at each press, refused or not: the card says a refusal again for whoever pressed. */
  constructor(cardId: string, press: (direction: Direction) => void) {
    this.group.setAttribute('role', 'group');
    this.note.id = `${cardId}-vote-note`;
    this.minusWhy.id = `${cardId}-minus-why`;
    this.plus.setAttribute('aria-describedby', this.note.id);
    this.minus.setAttribute('aria-describedby', this.minusWhy.id);
    for (const [button, direction] of [
      [this.minus, -1],
      [this.plus, 1],
    ] as const) {
      button.type = 'button';
      button.addEventListener('click', () => press(direction));
    }
    this.mine.setAttribute('aria-live', 'polite');
    this.group.append(this.minus, this.mine, this.plus, this.note, this.minusWhy);
  }

  update(card: Card, vote: CardFrame['vote']): void {
    this.group.hidden = vote === null;
    if (!vote) return;
    this.group.setAttribute('aria-label', t('participant.votes.group', { title: card.title }));
    this.plus.setAttribute('aria-label', t('participant.votes.give', { title: card.title }));
    this.minus.setAttribute('aria-label', t('participant.votes.take', { title: card.title }));
    setRefused(this.plus, vote.plus !== null);
    setRefused(this.minus, vote.minus !== null);
    setText(this.mine, String(vote.mine));
    this.mine.setAttribute('aria-label', t('participant.votes.mine', { points: vote.mine }));
    setText(this.note, vote.plus ?? vote.left);
    setText(this.minusWhy, vote.minus ?? '');
    this.note.classList.toggle('why', vote.plus !== null);
  }
}
