import { t } from '../shared/i18n';
import { setText } from './card-dom';

/*
 * The words a card says of itself, in the page's language (docs/i18n.md). A toggle offers something
 * while its list is empty, else says what the list holds and how much; the buttons are also named
 * after the card for screen readers, where several cards' buttons are read one after the other.
 */

/** Whose card it is, when it is the person's: whether the others see their name on it. */
export function sayBy(node: HTMLElement, nameShown: boolean): void {
  setText(node, t(nameShown ? 'participant.card.by_you' : 'participant.card.by_you_hidden'));
}

export function sayChanges(edit: HTMLElement, remove: HTMLElement, title: string): void {
  edit.setAttribute('aria-label', t('participant.card.edit_label', { title }));
  remove.setAttribute('aria-label', t('participant.card.delete_label', { title }));
}

export function sayItemsToggle(toggle: HTMLElement, count: number, title: string): void {
  setText(toggle, count === 0 ? t('participant.card.add_item') : t('participant.card.items', { count }));
  toggle.setAttribute(
    'aria-label',
    count === 0 ? t('participant.card.add_item_label', { title }) : t('participant.card.items_label', { count, title }),
  );
}

export function sayFilesToggle(toggle: HTMLElement, count: number, title: string): void {
  setText(toggle, count === 0 ? t('participant.card.attach') : t('participant.card.files', { count }));
  toggle.setAttribute(
    'aria-label',
    count === 0 ? t('participant.card.attach_label', { title }) : t('participant.card.files_label', { count, title }),
  );
}

export function sayCommentsToggle(toggle: HTMLElement, count: number): void {
  setText(toggle, count === 0 ? t('participant.card.comment') : t('participant.card.comments', { count }));
}

/** `rated` of the card's `total` criteria rated by the person. */
export function sayRateToggle(toggle: HTMLElement, rated: number, total: number): void {
  setText(toggle, rated === 0 ? t('participant.card.rate') : t('participant.card.rated', { rated, total }));
}
