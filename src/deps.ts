import type { CollabService } from './collab/types';
import type { Config } from './config';
import type { Database } from './db/database';
import type { ChangeOutbox } from './db/write';
import type { FileStore } from './files/store';
import type { SessionAuth } from './http/session-auth';
import type { Limiters } from './lib/limiters';
import type { DomainEventBus } from './domain/bus';
import type { Metrics } from './ops/metrics';
import type { Readiness } from './ops/readiness';

/**
 * What the app and its services are built from (`create-deps.ts` builds it); tests build their
 * own, nothing is global. Only types here, so a service naming its dependencies imports nothing.
 */
export interface AppDeps {
  config: Config;
  /** The store (SQLite or PostgreSQL), chosen once in `createDeps`. */
  database: Database;
  /** Where uploads, avatars and exports are kept: `FILES_DIR`, or the bucket of `FILES_URL`. */
  files: FileStore;
  bus: DomainEventBus;
  /** Webhook deliveries, written in each change's transaction (docs/integrations.md#webhooks). */
  changeOutbox: ChangeOutbox;
  /** The workshops' Yjs documents (card placements, zones); truth for those values. */
  collab: CollabService;
  /** Who a bearer token is: one cache of resolved tokens for REST, Socket.IO and the sync endpoint. */
  auth: SessionAuth;
  /**
   * Where every rate limit counts (wrong codes, failed logins, joins, imports): in Redis with
   * `REDIS_URL`, else in the database with `DATABASE_URL`, else in this process.
   */
  attempts: Limiters;
  /** This app's Prometheus series (`GET /metrics`), in a registry of its own. */
  metrics: Metrics;
  /** What `GET /ready` answers; the shutdown calls `readiness.markDraining()` on SIGTERM. */
  readiness: Readiness;
}
