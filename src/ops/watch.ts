import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { CollabService } from '../collab/types';
import { tablesOf, type Database, type Db } from '../db/database';
import type { Limiters } from '../lib/limiters';
import type { Metrics } from './metrics';

/** Mails the sender has still to deliver: neither sent nor given up (the outbox's pending index). */
export async function mailQueueDepth(db: Db): Promise<number> {
  const { outbox } = tablesOf(db);
  const [row] = await db
    .select({ n: count() })
    .from(outbox)
    .where(and(isNull(outbox.sentAt), isNull(outbox.failedAt)));
  return row?.n ?? 0;
}

/** Exports waiting to be made, taken or not (the exports' pending index). */
export async function exportQueueDepth(db: Db): Promise<number> {
  const { workshopExports } = tablesOf(db);
  const [row] = await db.select({ n: count() }).from(workshopExports).where(eq(workshopExports.state, 'pending'));
  return row?.n ?? 0;
}

/** Webhook deliveries still to be made (the deliveries' due index). */
export async function webhookQueueDepth(db: Db): Promise<number> {
  const { webhookDeliveries } = tablesOf(db);
  const [row] = await db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, 'pending'));
  return row?.n ?? 0;
}

/**
 * Bytes of the files recorded, by container: `uploads`, `avatars` and `exports`, the names the
 * service gives them (a client never chooses one), so the label's values stay a short fixed set.
 */
export async function storedBytesByContainer(db: Db): Promise<Map<string, number>> {
  const { files } = tablesOf(db);
  const rows = await db
    .select({ container: files.container, bytes: sql<string | number>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .groupBy(files.container);
  return new Map(rows.map((row) => [row.container, Number(row.bytes)]));
}

/**
 * Points the scrape-time gauges at what `createDeps` built: the queues in the database, the
 * sync side's connections and documents, and the Redis connections of the documents and of the
 * attempt limits. (Socket.IO's are pointed at in `attachRealtime`, which owns them.)
 */
export function watchDeps(
  metrics: Metrics,
  deps: { database: Database; collab: CollabService; attempts: Limiters },
): void {
  const { database, collab, attempts } = deps;
  metrics.sample('mailQueue', () => mailQueueDepth(database.db));
  metrics.sample('exportQueue', () => exportQueueDepth(database.db));
  metrics.sample('webhookQueue', () => webhookQueueDepth(database.db));
  metrics.watchStoredBytes(() => storedBytesByContainer(database.db));
  metrics.sample('syncConnections', () => collab.usage().connections);
  metrics.sample('syncBacklog', () => collab.usage().syncBacklog);
  metrics.sample('documentsLoaded', () => collab.usage().documents);
  metrics.watchRedis('collab', () => collab.usage().redisUp);
  metrics.watchRedis('attempts', () => attempts.redisUp());
}
