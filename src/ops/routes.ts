import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { Config } from '../config';
import type { Database } from '../db/database';
import { clientIp, isLoopback, peerIp } from '../http/client-address';
import { AppError } from '../http/errors';
import type { AppEnv } from '../http/env';
import type { Metrics } from './metrics';
import type { Readiness } from './readiness';

export interface OpsDeps {
  config: Pick<Config, 'metricsToken' | 'trustProxy' | 'smtpUrl'>;
  database: Pick<Database, 'answers'>;
  metrics: Metrics;
  readiness: Readiness;
}

/**
 * Compares a presented secret with the expected one in a time that tells nothing about either:
 * both are hashed first, so even their lengths do not show.
 */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Why this request may not read the metrics; null when it may. */
function metricsRefusal(c: Context, config: OpsDeps['config']): AppError | null {
  const token = config.metricsToken;
  if (token !== undefined) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (presented !== undefined && sameSecret(presented, token)) return null;
    return new AppError('unauthenticated', 'The metrics need Authorization: Bearer <METRICS_TOKEN>.', {
      headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
    });
  }
  // The socket's peer must be this machine, and so must the client a trusted proxy names: behind a
  // proxy on the same host every client's socket comes from loopback. A header is the client's to
  // write, so it never opens the metrics on its own.
  if (isLoopback(peerIp(c)) && isLoopback(clientIp(c, config))) return null;
  return new AppError('forbidden', 'Without METRICS_TOKEN the metrics are served to loopback addresses only.');
}

/**
 * `GET /health` (liveness, docs/operations.md#health-readiness-and-stopping), `GET /ready` and `GET
 * /metrics` (Prometheus text format, docs/operations.md#what-to-watch). None takes a user's token:
 * the metrics have their own (`METRICS_TOKEN`) or are kept to this machine.
 */
export function opsRoutes(deps: OpsDeps) {
  return new Hono<AppEnv>()
    .get('/health', async (c) => {
      const ok = await deps.database.answers();
      // `mail` says where mail goes: sent over SMTP, or kept in the outbox table.
      return c.json(
        { status: ok ? 'ok' : 'unavailable', mail: deps.config.smtpUrl ? 'smtp' : 'outbox' },
        ok ? 200 : 503,
      );
    })
    .get('/metrics', async (c) => {
      const refusal = metricsRefusal(c, deps.config);
      if (refusal) throw refusal;
      return c.body(await deps.metrics.exposition(), 200, {
        'Content-Type': deps.metrics.contentType,
        'Cache-Control': 'no-store',
      });
    })
    .get('/ready', async (c) => {
      const problem = await deps.readiness.problem();
      if (problem) throw new AppError('service_unavailable', problem, { headers: { 'Retry-After': '1' } });
      return c.json({ status: 'ready' }, 200, { 'Cache-Control': 'no-store' });
    });
}
