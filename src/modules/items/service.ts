import { nowIso } from '../../db/columns';
import { invalid, notFound } from '../../http/errors';
import { writeWorkshop, type WriteDeps } from '../../db/write';
import { diffFields } from '../../domain/events';
import { loadTarget, onCard } from '../access/feedback-target';
import type { CardRef } from '../../domain/card-ref';
import { authorize } from '../access/rules';
import { authorFor, authorVisibilityNow } from '../access/visibility';
import { deleteItem, findItem, insertItem, listItems as listItemRows, sectionExists, updateItemContent } from './repo';
import { toItem, type ItemRow } from './schemas';
import type { ItemOutput } from '../../domain/items';
import { msg } from '../../i18n/messages';

function found(row: ItemRow | undefined): ItemRow {
  if (!row) throw notFound('item');
  return row;
}

export async function listItems(
  deps: WriteDeps,
  ref: CardRef,
  query: { section_id?: string | undefined },
): Promise<ItemOutput[]> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return (await listItemRows(deps.database.db, card.id, query.section_id)).map((row) => authorFor(access, toItem(row)));
}

export async function getItem(deps: WriteDeps, ref: CardRef, itemId: string): Promise<ItemOutput> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return authorFor(access, toItem(found(await findItem(deps.database.db, card.id, itemId))));
}

export function addItem(
  deps: WriteDeps,
  ref: CardRef,
  input: { content: string; section_id: string },
): Promise<ItemOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    authorize(access, 'items');
    if (!(await sectionExists(tx, ref.workshopId, input.section_id)))
      throw invalid('section_id', msg('error.items.unknown_section'));
    const item = toItem(
      await insertItem(tx, {
        workshopId: ref.workshopId,
        cardId: card.id,
        sectionId: input.section_id,
        userId: ref.caller.id,
        authorVisibility: authorVisibilityNow(access),
        content: input.content,
      }),
    );
    changes.record({
      workshopId: ref.workshopId,
      action: 'addItem',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { item: onCard(item, card.id) },
    });
    return item;
  });
}

export function changeItem(
  deps: WriteDeps,
  ref: CardRef,
  itemId: string,
  input: { content?: string | undefined },
): Promise<ItemOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    const before = found(await findItem(tx, card.id, itemId));
    authorize(access, 'items');
    authorize(access, { manage_feedback: { authorId: before.userId } });
    if (input.content === undefined || input.content === before.content) return authorFor(access, toItem(before));
    const item = toItem(await updateItemContent(tx, before.id, input.content, nowIso()));
    const answer = authorFor(access, item);
    changes.record({
      workshopId: ref.workshopId,
      action: 'updateItem',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { item: onCard(item, card.id), changes: diffFields(toItem(before), item, ['content']) },
    });
    return answer;
  });
}

export async function removeItem(deps: WriteDeps, ref: CardRef, itemId: string): Promise<void> {
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    const row = found(await findItem(tx, card.id, itemId));
    authorize(access, 'items');
    authorize(access, { manage_feedback: { authorId: row.userId } });
    await deleteItem(tx, row.id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'removeItem',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { item: onCard(toItem(row), card.id) },
    });
  });
}
