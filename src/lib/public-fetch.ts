import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Fetching a URL a user gave, without letting them reach what only the server can (SSRF): only
 * http(s); every address a host resolves to must be public unicast (no loopback, private, link-
 * local, unique-local, carrier-grade NAT, multicast or reserved ranges, IPv4-mapped IPv6
 * included), checked on the address the connection actually uses, so a name that resolves
 * differently the second time gains nothing; redirects are followed by hand and each hop is
 * checked again; the body stops at a size cap and the whole exchange at a time limit.
 */

export interface PublicFetchOptions {
  /** Host names (lower case) let through whatever they resolve to. */
  allowHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  /** Redirects followed at most. */
  maxRedirects?: number;
}

/** Why a fetch was refused or failed; its message is meant for the user who gave the URL. */
export class PublicFetchError extends Error {
  override name = 'PublicFetchError';
}

/**
 * The one refusal for an address that is not public, whether the URL named it or a name resolved
 * to it: what a name resolved to stays inside the service (docs/integrations.md#safety).
 */
export const NOT_PUBLIC = 'The address is not allowed: it is not public.';

const DEFAULT_MAX_REDIRECTS = 5;

/** True for an address a user-given URL may reach: public unicast only. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  // The deprecated IPv4-compatible form (::127.0.0.1) may still be routed to IPv4 somewhere.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

export async function fetchPublic(url: string, options: PublicFetchOptions): Promise<Buffer> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  let current = parseTarget(url);
  for (let hop = 0; ; hop += 1) {
    const response = await request(current, options, deadline);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= (options.maxRedirects ?? DEFAULT_MAX_REDIRECTS))
        throw new PublicFetchError('The URL redirects too many times.');
      current = parseTarget(response.headers.location, current);
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new PublicFetchError(`The URL answered HTTP ${status}.`);
    }
    return readCapped(response, options.maxBytes, deadline);
  }
}

export function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new PublicFetchError(base ? 'The URL redirects to something that is not a URL.' : 'This is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new PublicFetchError('Only http and https URLs can be fetched.');
  if (url.username || url.password) throw new PublicFetchError('URLs with credentials are not fetched.');
  return url;
}

/** The URL's host as `net` sees it: without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function request(url: URL, options: PublicFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const host = hostOf(url);
  const allowed = options.allowHosts.includes(host);
  if (!allowed && isIP(host) && !isPublicAddress(host)) {
    return Promise.reject(new PublicFetchError(NOT_PUBLIC));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(
      url,
      { signal, lookup: allowed ? undefined : publicLookup, headers: { accept: 'application/json' }, agent: false },
      resolve,
    );
    req.on('error', (err) => reject(describe(err, signal)));
  });
}

/** A DNS lookup that fails unless every address of the name is public. */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    if (addresses.length === 0) return callback(new PublicFetchError('The name has no address.'), '', 0);
    if (addresses.some((a) => !isPublicAddress(a.address))) return callback(new PublicFetchError(NOT_PUBLIC), '', 0);
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

function readCapped(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(new PublicFetchError(`The file is larger than ${maxBytes} bytes.`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: PublicFetchError) => {
      if (settled) return;
      settled = true;
      reject(err);
      response.destroy();
    };
    response.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) return fail(new PublicFetchError(`The file is larger than ${maxBytes} bytes.`));
      chunks.push(chunk);
    });
    response.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    response.on('error', (err) => fail(describe(err, signal)));
    response.on('aborted', () => fail(describe(new Error('aborted'), signal)));
  });
}

function describe(err: Error, signal: AbortSignal): PublicFetchError {
  if (err instanceof PublicFetchError) return err;
  if (signal.aborted) return new PublicFetchError('Fetching the URL took too long.');
  return new PublicFetchError(`The URL could not be fetched (${(err as NodeJS.ErrnoException).code ?? err.message}).`);
}
