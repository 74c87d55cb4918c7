import type { Config } from './config';
import { openDatabase, type DatabaseHandle } from './db/client';
import { DomainEventBus } from './modules/events/bus';

/** What the app and its services are built from; tests build their own, nothing is global. */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  bus: DomainEventBus;
}

/** Opens the database (running migrations) and wires the in-process event bus. */
export function createDeps(config: Config): AppDeps {
  return { config, database: openDatabase(config.databasePath), bus: new DomainEventBus() };
}
