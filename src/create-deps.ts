import { createCollab } from './collab/index';
import type { Config } from './config';
import { openDatabase } from './db/client';
import type { AppDeps } from './deps';
import { attemptStores } from './http/middleware/attempt-stores';
import { sessionAuth } from './modules/auth/service';
import { zoneCopy } from './modules/canvas/zone-copy';
import { placementCopy } from './modules/cards/placement-copy';
import { DomainEventBus } from './modules/events/bus';

/** Opens the database (running migrations) and wires the in-process event bus and the documents. */
export function createDeps(config: Config): AppDeps {
  const database = openDatabase(config.databasePath);
  const bus = new DomainEventBus();
  const auth = sessionAuth({ config, database });
  const layout = { ...placementCopy(database.sqlite), ...zoneCopy(database.sqlite) };
  const collab = createCollab({ config, database, bus, auth, layout });
  return { config, database, bus, collab, auth, attempts: attemptStores(config.redisUrl) };
}
