import type { Attachment, Section } from 'workshop-sdk';
import { t } from '../shared/i18n';
import { element } from './card-dom';
import type { CardFrame } from './card-frame';
import { isMine } from './session';
import type { Criterion } from './step-prefs';

/*
 * The contents of a card's panels, drawn anew when what they show changed: the rating scales, the
 * items by section, the files, and the comments. They hold no controls the person may be typing in.
 */

/** One group of buttons per criterion, its values from the criterion's current scale. */
export function ratingScales(
  rate: NonNullable<CardFrame['rate']>,
  cardId: string,
  onRate: (criterion: Criterion, value: number) => void,
): HTMLElement[] {
  return rate.map(({ criterion }) => {
    const group = element('div', 'criterion');
    const name = element('p', 'criterion-name', criterion.title);
    name.id = `${cardId}-criterion-${criterion.id}`;
    name.dir = 'auto';
    group.setAttribute('role', 'group');
    group.setAttribute('aria-labelledby', name.id);
    group.dataset.criterionId = criterion.id;
    const values = element('div', 'scale');
    for (const value of criterion.current_scale) {
      const button = element('button', 'scale-value', String(value));
      button.type = 'button';
      button.dataset.value = String(value);
      button.setAttribute('aria-label', t('participant.card.rate_value', { value, criterion: criterion.title }));
      button.addEventListener('click', () => onRate(criterion, value));
      values.append(button);
    }
    group.append(name, values);
    return group;
  });
}

/** Marks each criterion's pressed value, and the criteria whose rating waits to be sent. */
export function markRatings(panel: HTMLElement, rate: NonNullable<CardFrame['rate']>): void {
  for (const { criterion, value, waiting } of rate) {
    const group = panel.querySelector<HTMLElement>(`[data-criterion-id="${CSS.escape(criterion.id)}"]`);
    group?.classList.toggle('waiting', waiting);
    group?.querySelectorAll<HTMLButtonElement>('.scale-value').forEach((button) => {
      button.setAttribute('aria-pressed', String(value !== null && button.dataset.value === String(value)));
    });
  }
}

/** Fills the item form's section picker, keeping the chosen section while it is still there. */
export function fillSections(select: HTMLSelectElement, sections: Section[]): void {
  const chosen = select.value;
  select.replaceChildren(
    ...sections.map(({ id, title }) => Object.assign(element('option', '', title), { value: id })),
  );
  if (sections.some(({ id }) => id === chosen)) select.value = chosen;
}

/** One list per section, with the items waiting to be sent at its end. */
export function itemSectionLists(items: NonNullable<CardFrame['items']>, count: number, cardId: string): HTMLElement[] {
  return items.sections.map((section) => {
    const group = element('div', 'item-section');
    const name = element('p', 'item-section-name', section.title);
    name.dir = 'auto';
    name.id = `${cardId}-section-${section.id}`;
    const list = element('ul', 'item-list');
    list.setAttribute('aria-labelledby', name.id);
    const entries = [
      ...(items.list ?? [])
        .filter((item) => item.section_id === section.id)
        .map((item) => writtenEntry('item', item.content, isMine(item, items.me) ? 'you' : null)),
      ...items.waiting
        .filter(({ sectionId }) => sectionId === section.id)
        .map(({ content }) => writtenEntry('item', content, 'you, waiting')),
    ];
    if (entries.length === 0)
      entries.push(
        element(
          'li',
          'list-empty',
          t(items.list === null && count > 0 ? 'participant.card.loading' : 'participant.card.no_items'),
        ),
      );
    list.append(...entries);
    group.append(name, list);
    return group;
  });
}

/** The card's files as links, then those being sent. */
export function fileEntries(list: Attachment[] | null, sending: string[], count: number): HTMLLIElement[] {
  const entries = (list ?? []).map((attachment) => {
    const entry = element('li', 'file');
    const link = element('a', 'file-link', attachment.name);
    link.href = attachment.url;
    link.rel = 'noopener';
    link.target = '_blank';
    entry.append(link, element('span', 'file-size', ` ${sizeText(attachment.size)}`));
    return entry;
  });
  for (const name of sending) entries.push(element('li', 'file waiting', t('participant.card.file_sending', { name })));
  if (entries.length === 0)
    entries.push(
      element(
        'li',
        'list-empty',
        t(list === null && count > 0 ? 'participant.card.loading' : 'participant.card.no_files'),
      ),
    );
  return entries;
}

/** The card's comments, then those waiting to be sent. */
export function commentEntries(comments: CardFrame['comments'], count: number): HTMLLIElement[] {
  const items = [
    ...(comments.list ?? []).map((found) =>
      writtenEntry('comment', found.content, isMine(found, comments.me) ? 'you' : null),
    ),
    ...comments.waiting.map((content) => writtenEntry('comment', content, 'you, waiting')),
  ];
  if (comments.list === null && comments.waiting.length === 0)
    items.push(element('li', 'list-empty', t(count > 0 ? 'participant.card.loading' : 'participant.card.no_comments')));
  else if (items.length === 0) items.push(element('li', 'list-empty', t('participant.card.no_comments')));
  return items;
}

/** A comment or an item in its card's list, saying so when the person wrote it; one still waiting to be sent drawn dashed. */
function writtenEntry(kind: 'comment' | 'item', content: string, by: 'you' | 'you, waiting' | null): HTMLLIElement {
  const entry = element('li', by === 'you, waiting' ? `${kind} waiting` : kind);
  const text = element('p', `${kind}-text`, content);
  text.dir = 'auto';
  entry.append(text);
  if (by)
    entry.append(
      element(
        'span',
        'written-by',
        t(by === 'you' ? 'participant.card.written_by_you' : 'participant.card.written_waiting'),
      ),
    );
  return entry;
}

/** A file's size in words a person reads. */
function sizeText(bytes: number): string {
  if (bytes < 1024) return t('participant.card.size_bytes', { size: bytes });
  if (bytes < 1024 * 1024) return t('participant.card.size_kb', { size: Math.round(bytes / 1024) });
  return t('participant.card.size_mb', { size: bytes / (1024 * 1024) });
}
