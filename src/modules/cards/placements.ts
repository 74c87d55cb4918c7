import type { AppDeps } from '../../deps';
import { sqliteOf, type Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import type { ChangeRecorder } from '../events/recorder';

const statements = preparedPerDb((db: Db) => {
  const sqlite = sqliteOf(db);
  return {
    stack: sqlite.prepare<[string, string | null], [string, number]>('SELECT id, position FROM cards WHERE workshop_id = ? AND parent_id IS ?').raw(),
    all: sqlite.prepare<[string], [string, number]>('SELECT id, position FROM cards WHERE workshop_id = ?').raw(),
  };
});

/**
 * Card positions live in the workshop's Yjs document too (it is their truth; `cards.position` is
 * the copy SQL sorts by). A write that moved, added or removed cards calls this inside its
 * transaction: once it commits, the document takes the positions SQL now holds for the stacks the
 * write touched (`all` for every card of the workshop) and loses the removed cards, so connected
 * canvases see the change. Nothing reaches the document when the write rolls back.
 */
export function pushPlacements(
  deps: Pick<AppDeps, 'collab' | 'database'>,
  changes: ChangeRecorder,
  workshopId: string,
  touched: { stacks: Iterable<string | null> | 'all'; removed?: readonly string[] },
): void {
  changes.afterCommit(() => {
    if (touched.removed && touched.removed.length > 0) deps.collab.removeCards(workshopId, touched.removed);
    const q = statements(deps.database.db);
    const rows = touched.stacks === 'all' ? q.all.all(workshopId) : [...new Set(touched.stacks)].flatMap((parentId) => q.stack.all(workshopId, parentId));
    if (rows.length > 0) deps.collab.setCardPlacements(workshopId, Object.fromEntries(rows.map(([id, position]) => [id, { position }])));
  });
}
