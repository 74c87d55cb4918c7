import type { CollabService } from './collab/types';
import type { Config } from './config';
import type { Database } from './db/database';
import type { AttemptStores } from './http/middleware/attempt-stores';
import type { SessionAuth } from './modules/auth/service';
import type { DomainEventBus } from './modules/events/bus';

/**
 * What the app and its services are built from (`create-deps.ts` builds it); tests build their
 * own, nothing is global. Only types here, so a service naming its dependencies imports nothing.
 */
export interface AppDeps {
  config: Config;
  /** The store (SQLite or PostgreSQL), chosen once in `createDeps`. */
  database: Database;
  bus: DomainEventBus;
  /** The workshops' Yjs documents (card placements, zones); truth for those values. */
  collab: CollabService;
  /** Who a bearer token is: one cache of resolved tokens for REST, Socket.IO and the sync endpoint. */
  auth: SessionAuth;
  /** Counters of the attempt limits (wrong codes, failed logins): in Redis when configured. */
  attempts: AttemptStores;
}
