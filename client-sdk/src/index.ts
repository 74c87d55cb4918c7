/**
 * The REST entry point: a client typed from the service's OpenAPI document, its error class, and
 * the resources by name. Live workshop state is in `workshop-sdk/live`, the canvas document in
 * `workshop-sdk/canvas`, so an app loads only what it uses.
 */
export {
  createClient,
  type ClientOptions,
  type DownloadedFile,
  type FilePath,
  type PagedPath,
  type WorkshopClient,
  type paths,
} from './client.js';
export { ApiError, type ErrorCode, type ErrorDetail, type KnownErrorCode } from './errors.js';
export { newIdempotencyKey, type RetryOptions } from './retry.js';
export type * from './resources.js';
