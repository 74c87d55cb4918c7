import type { Config } from '../../config';
import type { Database } from '../../db/database';
import type { DomainEventBus } from '../../domain/bus';

/** What the sign-in and account services need of the app. */
export interface AuthDeps {
  config: Config;
  database: Database;
  bus: DomainEventBus;
}
