import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { StoreLock, StoreObserver, TransactionKind } from '../db/database';

/** Gauges read when Prometheus scrapes, from whoever owns the number (`Metrics.sample`). */
export type SampledGauge =
  | 'socketConnections'
  | 'workshopRooms'
  | 'syncConnections'
  | 'syncBacklog'
  | 'documentsLoaded'
  | 'mailQueue'
  | 'exportQueue'
  | 'webhookQueue';

/** What a webhook delivery attempt came to: delivered, to be tried again, or given up. */
export type WebhookOutcome = 'succeeded' | 'retried' | 'failed';

/** The service's Redis connections, as the `connection` label names them. */
export type RedisConnection = 'realtime' | 'collab' | 'attempts';

/**
 * The process's own metrics (event loop, heap, GC) are the same whichever app asks, and
 * prom-client starts a GC observer and an event-loop monitor per registry they are collected
 * into: collected once per process, into a registry of their own, and served by every app beside
 * its own series.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** One series of the request metrics: its labels, made once, and its requests not in the counter yet. */
interface RequestSeries {
  readonly labels: { method: string; route: string; status: number };
  uncounted: number;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds, from a cached request (sub-millisecond) to a lock given up on (about a second). */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LOCK_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * One app's metrics (docs/operations.md#what-to-watch), in a registry of its own: several apps in one process (tests)
 * never share a series. Label values come from short fixed sets (route templates, event names,
 * lock kinds), never from ids, tokens or addresses. Hot paths only increment; the gauges that
 * count what other parts hold are read when Prometheus scrapes (`sample`, `watchRedis`).
 */
export class Metrics implements StoreObserver {
  private readonly registry = new Registry();
  private readonly sources = new Map<SampledGauge, () => number | Promise<number>>();
  private readonly redis = new Map<RedisConnection, () => boolean | undefined>();
  private storedBytes: (() => Promise<ReadonlyMap<string, number>>) | undefined;

  private readonly requestSeries = new Map<string, RequestSeries>();
  private readonly requests = new Counter({
    name: 'workshops_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    // prom-client hashes the labels on every `inc`, a labelled child's too: requests are counted
    // per series in `request` and added to the counter when it is read (a scrape).
    collect: () => {
      for (const series of this.requestSeries.values()) {
        if (series.uncounted === 0) continue;
        this.requests.inc(series.labels, series.uncounted);
        series.uncounted = 0;
      }
    },
  });
  private readonly requestSeconds = new Histogram({
    name: 'workshops_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly liveEvents = new Counter({
    name: 'workshops_live_events_sent_total',
    help: 'Live Socket.IO events sent to a room (one per emit, whatever the number of sockets in it), by event name.',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });
  private readonly liveEventsByName = new Map<string, { inc(): void }>();
  private readonly webhookAttempts = new Counter({
    name: 'workshops_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this instance, by outcome: succeeded (a 2xx), retried (to be tried again) or failed (given up).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly transactions = new Counter({
    name: 'workshops_db_transactions_total',
    help: 'Database transactions ended, by kind (write, snapshot) and outcome (commit, rollback).',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly transactionsBy = {
    write: {
      commit: this.transactions.labels('write', 'commit'),
      rollback: this.transactions.labels('write', 'rollback'),
    },
    snapshot: {
      commit: this.transactions.labels('snapshot', 'commit'),
      rollback: this.transactions.labels('snapshot', 'rollback'),
    },
  };
  private readonly lockWait = new Histogram({
    name: 'workshops_db_lock_wait_seconds',
    help: "Wait for a database lock before a transaction's statements: SQLite's writer or snapshot lock; PostgreSQL's pooled connection or a workshop's row. Waits given up on (503) included.",
    labelNames: ['lock'] as const,
    buckets: LOCK_BUCKETS,
    registers: [this.registry],
  });
  private readonly lockWaitBy: Record<StoreLock, { observe(seconds: number): void }> = {
    writer: this.lockWait.labels('writer'),
    snapshot: this.lockWait.labels('snapshot'),
    connection: this.lockWait.labels('connection'),
    workshop_row: this.lockWait.labels('workshop_row'),
  };

  constructor() {
    const metrics = this;
    new Gauge({
      name: 'workshops_files_stored_bytes',
      help: 'Bytes of the files recorded in the database, by container (uploads, avatars, exports), on every instance sharing it.',
      labelNames: ['container'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        if (!metrics.storedBytes) return;
        try {
          for (const [container, bytes] of await metrics.storedBytes()) this.set({ container }, bytes);
        } catch {
          // The database away: no series this scrape, rather than a failed scrape.
        }
      },
    });
    this.sampled('socketConnections', 'workshops_socketio_connections', 'Socket.IO connections open on this instance.');
    this.sampled(
      'workshopRooms',
      'workshops_socketio_workshop_rooms',
      'Workshops with at least one Socket.IO connection of this instance joined.',
    );
    this.sampled(
      'syncConnections',
      'workshops_sync_connections',
      'Yjs sync (y-websocket) connections open on this instance.',
    );
    this.sampled(
      'syncBacklog',
      'workshops_sync_backlog',
      'Sync messages received and not handled yet, over every connection of this instance (a connection past its bound is not read until it catches up).',
    );
    this.sampled(
      'documentsLoaded',
      'workshops_sync_documents_loaded',
      'Yjs workshop documents loaded in this instance.',
    );
    this.sampled(
      'mailQueue',
      'workshops_mail_queue_depth',
      'Mails in the outbox not sent yet and not given up (without SMTP_URL they stay there).',
    );
    this.sampled(
      'exportQueue',
      'workshops_export_queue_depth',
      'Exports waiting to be made, on every instance sharing the database.',
    );
    this.sampled(
      'webhookQueue',
      'workshops_webhook_outbox_depth',
      'Webhook deliveries not made yet and not given up, on every instance sharing the database.',
    );
    const redis = this.redis;
    new Gauge({
      name: 'workshops_redis_up',
      help: 'Whether a Redis connection of this instance is up (1) or not (0), by use; a connection not opened yet is left out.',
      labelNames: ['connection'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [connection, up] of redis) {
          const state = up();
          if (state !== undefined) this.set({ connection }, state ? 1 : 0);
        }
      },
    });
  }

  /** A gauge whose value is read from `sources` on each scrape: NaN when reading it failed (the database away). */
  private sampled(source: SampledGauge, name: string, help: string): void {
    const sources = this.sources;
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        const read = sources.get(source);
        if (!read) return this.set(0);
        try {
          this.set(await read());
        } catch {
          this.set(Number.NaN);
        }
      },
    });
  }

  /** Counts one webhook delivery attempt by what it came to. */
  webhookAttempt(outcome: WebhookOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  /** Reads `read` for a gauge on every scrape (there is one reader per gauge); returns the function that stops it. */
  sample(gauge: SampledGauge, read: () => number | Promise<number>): () => void {
    this.sources.set(gauge, read);
    return () => {
      if (this.sources.get(gauge) === read) this.sources.delete(gauge);
    };
  }

  /** Reads the bytes stored by container on every scrape; returns the function that stops it. */
  watchStoredBytes(read: () => Promise<ReadonlyMap<string, number>>): () => void {
    this.storedBytes = read;
    return () => {
      if (this.storedBytes === read) this.storedBytes = undefined;
    };
  }

  /** Reports a Redis connection's state on every scrape (`undefined`: not opened yet); returns the function that stops it. */
  watchRedis(connection: RedisConnection, up: () => boolean | undefined): () => void {
    this.redis.set(connection, up);
    return () => {
      if (this.redis.get(connection) === up) this.redis.delete(connection);
    };
  }

  /**
   * Counts one answered HTTP request; `route` is its template (`/v1/workshops/:id`), never the
   * path the client sent. Methods outside the usual few count as `other`. The 503s answered are
   * this counter's `status="503"` series.
   */
  request(method: string, route: string, status: number, seconds: number): void {
    const known = METHODS.has(method) ? method : 'other';
    const key = `${known} ${status} ${route}`;
    let series = this.requestSeries.get(key);
    if (!series) this.requestSeries.set(key, (series = { labels: { method: known, route, status }, uncounted: 0 }));
    series.uncounted += 1;
    this.requestSeconds.observe(series.labels, seconds);
  }

  /** Counts one live event sent to a room. `event` is one of the event map's names. */
  liveEventSent(event: string): void {
    let counter = this.liveEventsByName.get(event);
    if (!counter) this.liveEventsByName.set(event, (counter = this.liveEvents.labels(event)));
    counter.inc();
  }

  lockWaited(lock: StoreLock, seconds: number): void {
    this.lockWaitBy[lock].observe(seconds);
  }

  transactionEnded(kind: TransactionKind, outcome: 'commit' | 'rollback'): void {
    this.transactionsBy[kind][outcome].inc();
  }

  /** The Prometheus text format's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Everything in the Prometheus text format: the process's metrics, then this app's. */
  async exposition(): Promise<string> {
    const [process, app] = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    return process + app;
  }
}
