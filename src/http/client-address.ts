import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config';

type ProxySettings = Pick<Config, 'trustProxy'>;

/** The address of the socket the request came in on; none for a request no node socket carried (in-process). */
export function peerIp(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * Who a request came from: the socket's peer, or behind a trusted proxy the address it names: on
 * Fly (`TRUST_PROXY=fly`) its `Fly-Client-IP`, which Fly sets itself; behind another proxy
 * (`TRUST_PROXY=1`) the last `X-Forwarded-For` entry, the one that proxy added. Without it those
 * headers are ignored, since any client can send them.
 */
export function clientIp(c: Context, config: ProxySettings): string | undefined {
  let named: string | undefined;
  if (config.trustProxy === 'fly') named = c.req.header('fly-client-ip')?.trim();
  if (config.trustProxy !== 'none') named ||= c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
  return named || peerIp(c);
}

/**
 * The client as limits per address count it (`clientIp`): an IPv6 client as its /64 (one host
 * usually has the whole block to rotate through), an IPv4-mapped one as IPv4.
 */
export function clientKey(c: Context, config: ProxySettings): string {
  const address = clientIp(c, config) ?? 'unknown';
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

/** 127.0.0.0/8 and ::1, and IPv4 loopback written as IPv6 (`::ffff:127.0.0.1`). */
export function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}
