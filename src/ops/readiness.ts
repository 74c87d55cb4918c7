import type { Database } from '../db/database';

/** Where an instance is in its life: `/ready` answers 200 only while `serving`. */
export type ReadinessPhase = 'starting' | 'serving' | 'draining';

/**
 * Whether this instance should be sent traffic (`GET /ready`,
 * docs/operations.md#health-readiness-and-stopping): not while it is starting, not once it drains
 * after SIGTERM, not while its database (or a Redis it depends on) cannot be reached. `/health`
 * stays the liveness check: a draining instance is alive.
 */
export class Readiness {
  private current: ReadinessPhase = 'starting';
  private readonly dependencies = new Map<string, () => boolean>();

  constructor(private readonly database: Pick<Database, 'answers'>) {}

  get phase(): ReadinessPhase {
    return this.current;
  }

  /** The server listens and its fan-out is up (`createServer`). A draining instance stays draining. */
  markServing(): void {
    if (this.current === 'starting') this.current = 'serving';
  }

  /**
   * From now on `/ready` answers 503, so load balancers stop sending new requests while the ones
   * in flight finish. Called by the shutdown on SIGTERM, before it closes anything; for good.
   */
  markDraining(): void {
    this.current = 'draining';
  }

  /** A service this instance cannot serve without (Redis, when configured); returns the function that forgets it. */
  dependOn(name: string, reachable: () => boolean): () => void {
    this.dependencies.set(name, reachable);
    return () => {
      if (this.dependencies.get(name) === reachable) this.dependencies.delete(name);
    };
  }

  /** Why this instance should not be sent traffic now, as a sentence; null when it is ready. */
  async problem(): Promise<string | null> {
    if (this.current === 'starting') return 'The server is starting.';
    if (this.current === 'draining') return 'The server is shutting down.';
    for (const [name, reachable] of this.dependencies) if (!reachable()) return `${name} cannot be reached.`;
    if (!(await this.database.answers())) return 'The database cannot be reached.';
    return null;
  }
}
