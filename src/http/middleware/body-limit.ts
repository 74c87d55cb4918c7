import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError } from '../errors';
import type { AppEnv } from '../env';

const MiB = 1024 * 1024;
/** JSON bodies are capped at 1 MiB and uploads at 20 MiB (docs/api.md#authentication-and-errors). */
// The connection closes after the answer: what the client still sends of an oversize body is read
// and dropped for a short while first, so the client reads the 413 (http/lingering-close.ts).
const tooLarge = (message: string) => () => {
  throw new AppError('payload_too_large', message, { headers: { Connection: 'close' } });
};
const jsonLimit = bodyLimit({ maxSize: MiB, onError: tooLarge('JSON bodies are limited to 1 MiB.') });
const uploadLimit = bodyLimit({ maxSize: 20 * MiB, onError: tooLarge('Uploads are limited to 20 MiB.') });

/**
 * Refuses bodies over the documented limits (docs/api.md#requests-and-answers) with 413 `payload_too_large`: multipart uploads over
 * 20 MiB, anything else over 1 MiB.
 */
export function limitBodySize(): MiddlewareHandler<AppEnv> {
  return async function limitBodySize(c, next) {
    const multipart = (c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/');
    // A declared length is enforced by the HTTP parser, so it can be judged up front without
    // wrapping the body in a counting stream; only chunked bodies need the stream.
    const declared = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    // No body at all (most GETs): nothing to limit, and touching the body would build a Request object.
    if (declared === undefined && !chunked) return next();
    if (declared !== undefined && !chunked) {
      if (Number(declared) > (multipart ? 20 * MiB : MiB)) {
        tooLarge(multipart ? 'Uploads are limited to 20 MiB.' : 'JSON bodies are limited to 1 MiB.')();
      }
      return next();
    }
    return multipart ? uploadLimit(c, next) : jsonLimit(c, next);
  };
}
