import { nowIso } from '../../db/columns';
import { invalid, notFound } from '../../http/errors';
import { diffFields, write, type WriteDeps } from '../events/recorder';
import { loadTarget, onCard, type CardRef } from '../cards/feedback-target';
import { authorize } from '../access/rules';
import { deleteItem, findItem, insertItem, listItems as listItemRows, sectionExists, updateItemContent } from './repo';
import { toItem, type ItemOutput, type ItemRow } from './schemas';

function found(row: ItemRow | undefined): ItemRow {
  if (!row) throw notFound('Item');
  return row;
}

export function listItems(deps: WriteDeps, ref: CardRef, query: { section_id?: string | undefined }): ItemOutput[] {
  const { card } = loadTarget(deps.database.db, ref);
  return listItemRows(deps.database.db, card.id, query.section_id).map(toItem);
}

export function getItem(deps: WriteDeps, ref: CardRef, itemId: string): ItemOutput {
  const { card } = loadTarget(deps.database.db, ref);
  return toItem(found(findItem(deps.database.db, card.id, itemId)));
}

export function addItem(deps: WriteDeps, ref: CardRef, input: { content: string; section_id: string }): ItemOutput {
  const { db } = deps.database;
  return write(deps, (_tx, changes) => {
    const { access, card } = loadTarget(db, ref);
    authorize(access, 'items');
    if (!sectionExists(db, ref.workshopId, input.section_id)) throw invalid('section_id', 'No section with this id in the workshop.');
    const item = toItem(insertItem(db, { workshopId: ref.workshopId, cardId: card.id, sectionId: input.section_id, userId: ref.userId, content: input.content }));
    changes.record({ workshopId: ref.workshopId, action: 'addItem', userId: ref.userId, change: { item: onCard(item, card.id) } });
    return item;
  });
}

export function changeItem(deps: WriteDeps, ref: CardRef, itemId: string, input: { content?: string | undefined }): ItemOutput {
  const { db } = deps.database;
  return write(deps, (_tx, changes) => {
    const { access, card } = loadTarget(db, ref);
    const before = found(findItem(db, card.id, itemId));
    authorize(access, 'items');
    authorize(access, { manage_feedback: { authorId: before.userId } });
    if (input.content === undefined || input.content === before.content) return toItem(before);
    const item = toItem(updateItemContent(db, before.id, input.content, nowIso()));
    changes.record({
      workshopId: ref.workshopId,
      action: 'updateItem',
      userId: ref.userId,
      change: { item: onCard(item, card.id), changes: diffFields(toItem(before), item, ['content']) },
    });
    return item;
  });
}

export function removeItem(deps: WriteDeps, ref: CardRef, itemId: string): void {
  const { db } = deps.database;
  write(deps, (_tx, changes) => {
    const { access, card } = loadTarget(db, ref);
    const row = found(findItem(db, card.id, itemId));
    authorize(access, 'items');
    authorize(access, { manage_feedback: { authorId: row.userId } });
    deleteItem(db, row.id);
    changes.record({ workshopId: ref.workshopId, action: 'removeItem', userId: ref.userId, change: { item: onCard(toItem(row), card.id) } });
  });
}
