import { eq } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db } from '../../db/database';
import type { TimerRow } from './schemas';

export async function timerOf(db: Db, workshopId: string): Promise<TimerRow | undefined> {
  const { workshopTimers } = tablesOf(db);
  const [row] = await db.select().from(workshopTimers).where(eq(workshopTimers.workshopId, workshopId));
  return row;
}

/** Writes the workshop's timer, whether it had one or not. */
export async function upsertTimer(
  tx: Db,
  workshopId: string,
  next: Omit<TimerRow, 'workshopId' | 'updatedAt'>,
): Promise<TimerRow> {
  const { workshopTimers } = tablesOf(tx);
  const [row] = await tx
    .insert(workshopTimers)
    .values({ workshopId, ...next, updatedAt: nowIso() })
    .onConflictDoUpdate({ target: workshopTimers.workshopId, set: { ...next, updatedAt: nowIso() } })
    .returning();
  return row!;
}
