import { createCollab, type CollabService } from './collab/index';
import type { Config } from './config';
import { openDatabase, type DatabaseHandle } from './db/client';
import { DomainEventBus } from './modules/events/bus';

/** What the app and its services are built from; tests build their own, nothing is global. */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  bus: DomainEventBus;
  /** The workshops' Yjs documents (card placements, zones); truth for those values. */
  collab: CollabService;
}

/** Opens the database (running migrations) and wires the in-process event bus and the documents. */
export function createDeps(config: Config): AppDeps {
  const database = openDatabase(config.databasePath);
  const bus = new DomainEventBus();
  return { config, database, bus, collab: createCollab({ config, database, bus }) };
}
