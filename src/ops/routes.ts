import { createHash, timingSafeEqual } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config';
import { AppError } from '../http/errors';
import type { AppEnv } from '../http/env';
import type { Metrics } from './metrics';
import type { Readiness } from './readiness';

export interface OpsDeps {
  config: Pick<Config, 'metricsToken'>;
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

/**
 * The address of the socket the request came in on, whatever `TRUST_PROXY` says: a header naming
 * another address is the client's to write, and must not open the metrics to it.
 */
function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // Not served by a node socket (an in-process request): no peer to trust.
    return undefined;
  }
}

/** 127.0.0.0/8 and ::1, and IPv4 loopback written as IPv6 (`::ffff:127.0.0.1`). */
export function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/** Why this request may not read the metrics; null when it may. */
function metricsRefusal(c: Context, token: string | undefined): AppError | null {
  if (token !== undefined) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (presented !== undefined && sameSecret(presented, token)) return null;
    return new AppError('unauthenticated', 'The metrics need Authorization: Bearer <METRICS_TOKEN>.', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
  }
  if (isLoopback(peerAddress(c))) return null;
  return new AppError('forbidden', 'Without METRICS_TOKEN the metrics are served to loopback addresses only.');
}

/**
 * `GET /metrics` (Prometheus text format) and `GET /ready` (CONTRACT §13). Neither takes a user's
 * token: the metrics have their own (`METRICS_TOKEN`) or are kept to this machine.
 */
export function opsRoutes(deps: OpsDeps) {
  return new Hono<AppEnv>()
    .get('/metrics', async (c) => {
      const refusal = metricsRefusal(c, deps.config.metricsToken);
      if (refusal) throw refusal;
      return c.body(await deps.metrics.exposition(), 200, { 'Content-Type': deps.metrics.contentType, 'Cache-Control': 'no-store' });
    })
    .get('/ready', async (c) => {
      const problem = await deps.readiness.problem();
      if (problem) throw new AppError('service_unavailable', problem, { headers: { 'Retry-After': '1' } });
      return c.json({ status: 'ready' }, 200, { 'Cache-Control': 'no-store' });
    });
}
