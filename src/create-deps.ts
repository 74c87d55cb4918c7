import { createCollab } from './collab/index';
import type { Config } from './config';
import { openDatabase } from './db/client';
import type { AppDeps } from './deps';
import { DomainEventBus } from './modules/events/bus';

/** Opens the database (running migrations) and wires the in-process event bus and the documents. */
export function createDeps(config: Config): AppDeps {
  const database = openDatabase(config.databasePath);
  const bus = new DomainEventBus();
  return { config, database, bus, collab: createCollab({ config, database, bus }) };
}
