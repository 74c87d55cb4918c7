import { getConnInfo } from '@hono/node-server/conninfo';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../../config';
import type { Context, MiddlewareHandler } from 'hono';
import { rateLimiter, type RateLimitInfo, type Store } from 'hono-rate-limiter';
import { AppError, toErrorResponse } from '../errors';
import type { AppEnv } from '../env';

export interface AttemptLimitOptions {
  /** Names the counter (keys and the request property); unique per limit. */
  name: string;
  /** Counted attempts allowed per window; the next one answers 429 until the window ends. 0: no limit. */
  limit: number;
  windowMs: number;
  /** Whose budget a request spends (a user id, an address, an e-mail). */
  key: (c: Context<AppEnv>) => string | Promise<string>;
  /** Which answers count against the budget (a wrong code, a failed login); all of them when absent. */
  counts?: (c: Context<AppEnv>) => boolean;
  /** The sentence of the 429, given the seconds to wait. */
  message: (seconds: number) => string;
  /** Where the counters live (memory per instance by default; Redis to share them). */
  store?: Store<AppEnv> | undefined;
}

/**
 * Limits attempts of one kind (wrong access codes, failed logins, signups) with the contract's
 * 429 `rate_limited` and `Retry-After`. Only answers `counts` picks spend the budget, so a correct
 * code or password after a few mistakes still goes through.
 */
export function limitAttempts(options: AttemptLimitOptions): MiddlewareHandler<AppEnv> {
  // 0 is no limit (CONTRACT §1); hono-rate-limiter would read it as no attempt allowed at all.
  if (options.limit === 0) {
    return async function unlimitedAttempts(_c, next) {
      await next();
    };
  }
  const property = `attempts_${options.name}`;
  const counts = options.counts;
  return rateLimiter<AppEnv>({
    windowMs: options.windowMs,
    limit: options.limit,
    standardHeaders: false,
    skipSuccessfulRequests: counts !== undefined,
    ...(counts ? { requestWasSuccessful: (c: Context<AppEnv>) => !counts(c) } : {}),
    requestPropertyName: property,
    requestStorePropertyName: `${property}_store`,
    keyGenerator: async (c) => `${options.name}:${await options.key(c)}`,
    ...(options.store ? { store: options.store } : {}),
    handler: (c) => {
      const info = (c.get as (key: string) => unknown)(property) as RateLimitInfo | undefined;
      const resetAt = info?.resetTime?.getTime() ?? Date.now() + options.windowMs;
      const seconds = Math.max(1, Math.ceil((resetAt - Date.now()) / 1000));
      const error = new AppError('rate_limited', options.message(seconds), { headers: { 'Retry-After': String(seconds) } });
      return toErrorResponse(error, c);
    },
  });
}

/**
 * Who a request came from, as attempt limits count clients: the socket's peer, or behind a trusted
 * proxy the address it names: on Fly (`TRUST_PROXY=fly`) its `Fly-Client-IP`, which Fly sets itself;
 * behind another proxy (`TRUST_PROXY=1`) the last `X-Forwarded-For` entry, the one that proxy added.
 * Without it those headers are ignored, since any client can send them. An IPv6 client counts as
 * its /64 (one host usually has the whole block to rotate through), an IPv4-mapped one as IPv4.
 */
export function clientAddress(config: { trustProxy: TrustProxy }): (c: Context<AppEnv>) => string {
  return (c) => {
    let named: string | undefined;
    if (config.trustProxy === 'fly') named = c.req.header('fly-client-ip')?.trim();
    if (config.trustProxy !== 'none') named ||= c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    return clientKey(named || getConnInfo(c).remote.address || 'unknown');
  };
}

function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
