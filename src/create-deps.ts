import { createCollab } from './collab/index';
import type { Config } from './config';
import { openStore } from './db/store';
import type { AppDeps } from './deps';
import { attemptStores } from './http/middleware/attempt-stores';
import { sessionAuth } from './modules/auth/service';
import { zoneCopy } from './modules/canvas/zone-copy';
import { placementCopy } from './modules/cards/placement-copy';
import { DomainEventBus } from './modules/events/bus';

/** Opens the store (running migrations) and wires the in-process event bus and the documents. */
export async function createDeps(config: Config): Promise<AppDeps> {
  const database = await openStore(config);
  const bus = new DomainEventBus();
  const auth = sessionAuth({ config, database });
  const layout = { ...placementCopy(), ...zoneCopy() };
  const collab = createCollab({ config, database, bus, auth, layout });
  return { config, database, bus, collab, auth, attempts: attemptStores(config.redisUrl) };
}
