import { createCollab } from './collab/index';
import type { Config } from './config';
import type { Database } from './db/database';
import { databaseLimiters } from './db/rate-counters';
import { openStore } from './db/store';
import type { AppDeps } from './deps';
import { openFileStore } from './files/open';
import { memoryLimiters, redisLimiters, type Limiters } from './lib/limiters';
import { sessionAuth } from './modules/auth/tokens';
import { zoneCopy } from './modules/canvas/zone-copy';
import { placementCopy } from './modules/cards/placement-copy';
import { webhookOutbox } from './modules/webhooks/outbox';
import { DomainEventBus } from './domain/bus';
import { Metrics } from './ops/metrics';
import { Readiness } from './ops/readiness';
import { watchDeps } from './ops/watch';

/** Opens the store (running migrations) and wires the in-process event bus and the documents. */
export async function createDeps(config: Config): Promise<AppDeps> {
  const metrics = new Metrics();
  const database = await openStore(config, metrics);
  const files = await openFileStore(config);
  const bus = new DomainEventBus();
  const auth = sessionAuth({ config, database });
  const layout = { ...placementCopy(), ...zoneCopy() };
  const collab = createCollab({ config, database, bus, auth, layout });
  const attempts = limitersFor(config, database);
  watchDeps(metrics, { database, collab, attempts });
  const changeOutbox = webhookOutbox();
  return {
    config,
    database,
    files,
    bus,
    changeOutbox,
    collab,
    auth,
    attempts,
    metrics,
    readiness: new Readiness(database),
  };
}

/**
 * Where the rate limits count. Limits hold for the service whenever REDIS_URL or DATABASE_URL is
 * set (docs/configuration.md#limits-across-instances): in Redis, else in the PostgreSQL every
 * instance shares. Without either the service is one process on its SQLite file, whose counters
 * need no write on the single writer.
 */
function limitersFor(config: Config, database: Database): Limiters {
  if (config.redisUrl) return redisLimiters(config.redisUrl);
  if (config.databaseUrl) return databaseLimiters(database);
  return memoryLimiters();
}
