/*
 * The lists written on a card (comments, items, files) that the page keeps once their panel was
 * opened: which logged actions change them, and how an entry written, changed or removed lands.
 */

/** The lists of what is written on a card that the page reads when their panel opens. */
export type CardList = 'comments' | 'items' | 'attachments';

/** The logged actions that change each of a card's lists, and the member of their change holding the entry. */
const CARD_LIST_ACTIONS: Record<
  CardList,
  { member: string; written: readonly string[]; removed: string; cleared: string }
> = {
  comments: { member: 'comment', written: ['addComment'], removed: 'removeComment', cleared: 'removeComments' },
  items: { member: 'item', written: ['addItem', 'updateItem'], removed: 'removeItem', cleared: 'removeItems' },
  attachments: {
    member: 'attachment',
    written: ['addAttachment'],
    removed: 'removeAttachment',
    cleared: 'removeAttachments',
  },
};

/** Applies a logged change to a comment, an item or an attachment to the lists read; false for any other change. */
export function followCardLists(
  lists: Record<CardList, Map<string, Array<{ id: string }>>>,
  action: string,
  change: Record<string, unknown> | undefined,
): boolean {
  for (const [kind, actions] of Object.entries(CARD_LIST_ACTIONS) as Array<
    [CardList, (typeof CARD_LIST_ACTIONS)[CardList]]
  >) {
    const kept = lists[kind];
    if (action === actions.cleared) {
      for (const cardId of kept.keys()) kept.set(cardId, []);
      return true;
    }
    const entry = change?.[actions.member] as { id: string; card_id: string } | undefined;
    if (entry && (actions.written.includes(action) || action === actions.removed)) {
      applyToCardList(kept, entry.card_id, entry, action === actions.removed);
      return true;
    }
  }
  return false;
}

/** Something written on a card whose list was read (an item, an attachment): added, changed or gone. */
export function applyToCardList<T extends { id: string }>(
  lists: Map<string, T[]>,
  cardId: string,
  written: T,
  gone = false,
): void {
  const list = lists.get(cardId);
  if (!list) return;
  const known = list.some(({ id }) => id === written.id);
  if (gone)
    lists.set(
      cardId,
      list.filter(({ id }) => id !== written.id),
    );
  else lists.set(cardId, known ? list.map((kept) => (kept.id === written.id ? written : kept)) : [...list, written]);
}
