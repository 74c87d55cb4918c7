import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { hostOf, isPublicAddress, NOT_PUBLIC, parseTarget, publicLookup, PublicFetchError } from './public-fetch';

/*
 * POSTing to a URL a user gave (webhook deliveries), under `fetchPublic`'s guard: only http(s),
 * only public addresses, checked on the connection's own lookup. Redirects are not followed at
 * all (a 3xx is the answer), so a delivery never lands on a host nobody registered. The answer's
 * body is read up to a small cap, the whole exchange within a time limit.
 */

export interface PublicPostOptions {
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Bytes of the answer's body kept; the rest is read and dropped. */
  maxBytes: number;
  /** Private, loopback and link-local addresses let through (tests, private networks). */
  allowPrivate: boolean;
  /** Keeps connections to one endpoint open between deliveries. */
  agents?: { http: http.Agent; https: https.Agent };
}

export interface PublicPostAnswer {
  status: number;
  /** The body's first `maxBytes` bytes, as text. */
  body: string;
}

export function postPublic(url: string, options: PublicPostOptions): Promise<PublicPostAnswer> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let target: URL;
  try {
    target = parseTarget(url);
  } catch (err) {
    return Promise.reject(err);
  }
  const host = hostOf(target);
  if (!options.allowPrivate && isIP(host) && !isPublicAddress(host))
    return Promise.reject(new PublicFetchError(NOT_PUBLIC));
  const secure = target.protocol === 'https:';
  const client = secure ? https : http;
  const failed = (err: Error) => failure(err, signal, options.timeoutMs);
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        signal,
        lookup: options.allowPrivate ? undefined : publicLookup,
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        agent: options.agents ? (secure ? options.agents.https : options.agents.http) : false,
      },
      (response) => void readSome(response, options.maxBytes, failed).then(resolve, reject),
    );
    request.on('error', (err) => reject(failed(err)));
    request.end(options.body);
  });
}

/** The status and the body's first `maxBytes` bytes; the rest is drained so the connection can be kept. */
function readSome(
  response: IncomingMessage,
  maxBytes: number,
  failed: (err: Error) => PublicFetchError,
): Promise<PublicPostAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    response.on('data', (chunk: Buffer) => {
      if (kept >= maxBytes) return;
      const part = chunk.subarray(0, maxBytes - kept);
      chunks.push(part);
      kept += part.byteLength;
    });
    response.on('end', () =>
      resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
    );
    response.on('error', (err) => reject(failed(err)));
    response.on('aborted', () => reject(failed(new Error('the answer was cut off'))));
  });
}

/**
 * What went wrong, for the endpoint's owner: the error's code rather than its message, which may name
 * the address a name resolved to (`connect ECONNREFUSED 10.0.0.5:80`).
 */
function failure(err: Error, signal: AbortSignal, timeoutMs: number): PublicFetchError {
  if (err instanceof PublicFetchError) return err;
  if (signal.aborted) return new PublicFetchError(`No answer within ${timeoutMs / 1000} s.`);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return new PublicFetchError('The connection was refused (ECONNREFUSED).');
  if (code === 'ECONNRESET') return new PublicFetchError('The connection was closed before an answer (ECONNRESET).');
  return new PublicFetchError(`The endpoint could not be reached (${code ?? err.message}).`);
}
