import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { reorder } from '../../db/positions';
import type { ChangeRecorder } from '../../domain/recorder';
import { placementCopy } from './placement-copy';

/** A stack is read in the order the documents' SQL copy keeps it (the same prepared statement). */
const copy = placementCopy();

/**
 * The new order of the card stacks a REST write touches. Card positions live in the workshop's Yjs
 * document (their truth; `cards.position` is the copy SQL sorts by), so a write does not renumber
 * rows itself: it plans here, and `commit` hands the stacks' new positions, and the cards it
 * deleted, to the document inside the write transaction. The document stores that change and
 * writes the SQL copy in the same transaction, like every client move; clients hear of it once the
 * write commits, and nothing of it survives a rollback.
 *
 * A stack is read from SQL the first time the plan touches it, so touch it before the write
 * changes that stack's rows (a new card's row is inserted at the position `insert` returns).
 */
export class StackPlan {
  private readonly stacks = new Map<string | null, string[]>();
  private readonly removed = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly workshopId: string,
  ) {}

  /** The stack's ids in their planned order (ideas of a cluster, or all clusters for null). */
  async ids(parentId: string | null): Promise<readonly string[]> {
    return this.stack(parentId);
  }

  private async stack(parentId: string | null): Promise<string[]> {
    let ids = this.stacks.get(parentId);
    if (!ids) {
      ids = (await copy.stack(this.db, this.workshopId, parentId)).map((row) => row.id);
      this.stacks.set(parentId, ids);
    }
    return ids;
  }

  /** Puts a card in a stack at `position` (clamped; the end when omitted); returns its index. */
  async insert(parentId: string | null, cardId: string, position?: number): Promise<number> {
    return reorder(await this.stack(parentId), { insert: { id: cardId, position } });
  }

  /** Moves a card from one stack to the end of another (or to `position` there). */
  async move(
    fromParentId: string | null,
    toParentId: string | null,
    cardId: string,
    position?: number,
  ): Promise<number> {
    if (fromParentId !== toParentId) reorder(await this.stack(fromParentId), { remove: cardId });
    return this.insert(toParentId, cardId, position);
  }

  /** Takes a card out of its stack; the others close the gap. */
  async remove(parentId: string | null, cardId: string): Promise<void> {
    reorder(await this.stack(parentId), { remove: cardId });
  }

  /** Cards the write deletes: out of every stack the plan holds, and out of the document. */
  delete(cardIds: Iterable<string>): void {
    for (const id of cardIds) this.removed.add(id);
    for (const ids of this.stacks.values()) {
      for (let i = ids.length - 1; i >= 0; i--) if (this.removed.has(ids[i]!)) ids.splice(i, 1);
    }
  }

  /** Hands the planned stacks (numbered 0..n-1) and the deleted cards to the document, in the write `tx`. */
  async commit(deps: Pick<AppDeps, 'collab'>, tx: Db, changes: ChangeRecorder): Promise<void> {
    const placements: Record<string, { position: number }> = {};
    for (const [parentId, ids] of this.stacks) {
      if (parentId !== null && this.removed.has(parentId)) continue;
      ids.forEach((id, position) => (placements[id] = { position }));
    }
    await deps.collab.placeCards({ tx, changes }, this.workshopId, { placements, removed: [...this.removed] });
  }
}
