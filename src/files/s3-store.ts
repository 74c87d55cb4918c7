import type { S3Settings } from '../config';
import { objectStore, type FileStore, type StoreFailure } from './store';

/** `s3://bucket/optional/prefix` split into the bucket and the key prefix (`''` or ending in `/`). */
export function parseFilesUrl(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match) throw new Error(`Not an s3:// URL: ${url}`);
  const path = match[2]!.replace(/\/+$/, '');
  return { bucket: match[1]!, prefix: path ? `${path}/` : '' };
}

/**
 * Each request's limits. Without them a bucket that accepts connections and never answers would
 * hold an upload, a download, an avatar change or the exports' tidying forever (the SDK's defaults
 * are no limits at all). A connection not made within `connectMs` (2 s), or a request not answered
 * (its headers) within `answerMs` (3 s) after it was sent, fails as a timeout; the body a slow client
 * downloads afterwards is not limited. A body sent (a put) gets `answerMs` plus a second per MiB,
 * so a large upload over a slow link is not cut. The SDK tries a failed request once more: a
 * bucket that never answers costs at most two such waits before `FileStoreUnavailable` (503).
 */
export interface S3Limits {
  connectMs: number;
  answerMs: number;
}
const DEFAULT_LIMITS: S3Limits = { connectMs: 2_000, answerMs: 3_000 };
const MS_PER_MIB = 1_000;
const ATTEMPTS = 2;

/** `FILES_URL`: each object is the key `<prefix><name>` in the bucket; any instance reads what another wrote. */
export async function s3FileStore(
  url: string,
  settings: S3Settings,
  { connectMs, answerMs }: S3Limits = DEFAULT_LIMITS,
): Promise<FileStore> {
  // Loaded only by instances that use a bucket. A dynamic import, because the build hoists static
  // imports of packages to the top of the bundle, where every instance would load the SDK.
  const {
    DeleteObjectCommand,
    DeleteObjectsCommand,
    GetObjectCommand,
    ListObjectsCommand,
    PutObjectCommand,
    S3Client,
  } = await import('@aws-sdk/client-s3');
  const { bucket, prefix: base } = parseFilesUrl(url);
  const client = new S3Client({
    // S3-compatible servers mostly ignore the region, but requests are signed with one.
    region: settings.region ?? (settings.endpoint ? 'us-east-1' : undefined),
    endpoint: settings.endpoint,
    // Servers at an endpoint of their own (MinIO, s3rver, …) seldom resolve bucket subdomains.
    forcePathStyle: settings.endpoint !== undefined,
    // Unset, the SDK looks for credentials itself (shared files, instance and container roles).
    credentials:
      settings.accessKeyId && settings.secretAccessKey
        ? {
            accessKeyId: settings.accessKeyId,
            secretAccessKey: settings.secretAccessKey,
            sessionToken: settings.sessionToken,
          }
        : undefined,
    // The client's defaults ('WHEN_SUPPORTED') add CRC32 checksums to every upload. Tried against
    // s3rver: a buffer with its `x-amz-checksum-crc32` header round-trips, but a streamed body goes
    // out `aws-chunked` with a trailing checksum, which s3rver (like other S3-compatible servers
    // older than that scheme) stores verbatim, framing and all. So checksums only where an
    // operation requires one (DeleteObjects); the signature covers each body's SHA-256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Without `throwOnRequestTimeout` an overrun request only logs a warning and goes on waiting.
    requestHandler: { connectionTimeout: connectMs, requestTimeout: answerMs, throwOnRequestTimeout: true },
    maxAttempts: ATTEMPTS,
  });
  const keyOf = (name: string) => `${base}${name}`;

  return objectStore({
    location: `the bucket ${bucket}${base ? ` under ${base}` : ''}${settings.endpoint ? ` at ${new URL(settings.endpoint).host}` : ''}`,

    async put(name, data, contentType) {
      const command = new PutObjectCommand({
        Bucket: bucket,
        Key: keyOf(name),
        Body: data,
        ContentLength: data.byteLength,
        ContentType: contentType,
      });
      await client.send(command, { requestTimeout: answerMs + Math.ceil((data.byteLength / 2 ** 20) * MS_PER_MIB) });
    },

    async open(name) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(name) }));
      if (!object.Body) return null;
      return {
        size: object.ContentLength ?? 0,
        modifiedAt: object.LastModified ?? new Date(0),
        body: object.Body.transformToWebStream() as ReadableStream<Uint8Array>,
      };
    },

    async remove(names) {
      if (names.length === 1) {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(names[0]!) }));
        return;
      }
      const answer = await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: names.map((name) => ({ Key: keyOf(name) })), Quiet: true },
        }),
      );
      const [first, ...others] = answer.Errors ?? [];
      if (first)
        throw new Error(
          `Object storage kept ${others.length + 1} of ${names.length} objects: ${first.Key} ${first.Code} ${first.Message}`,
        );
    },

    // ListObjects (v1), paged by the last key seen: every S3-compatible server pages it alike,
    // where some (s3rver among them) fail to make v2's continuation tokens.
    async page(prefix, after, max) {
      const page = await client.send(
        new ListObjectsCommand({
          Bucket: bucket,
          Prefix: `${base}${prefix}`,
          Marker: after === undefined ? undefined : keyOf(after),
          MaxKeys: max,
        }),
      );
      const objects = (page.Contents ?? []).map((object) => ({
        name: object.Key?.startsWith(base) ? object.Key.slice(base.length) : '',
        size: object.Size ?? 0,
        modifiedAt: object.LastModified ?? new Date(0),
      }));
      return { objects, more: page.IsTruncated === true };
    },

    classify,
  });
}

/**
 * A missing object is S3's NoSuchKey (or a bare 404). Network failures, timeouts, throttling and
 * the server's own errors (the client has already retried them) are the storage away: a 503, try
 * again. Anything else (access denied, no such bucket) is a setting to fix and stays as it is.
 */
function classify(err: unknown): StoreFailure {
  const failure = err as { $metadata?: { httpStatusCode?: number }; code?: unknown; name?: string };
  if (failure.name === 'NoSuchKey' || failure.name === 'NotFound') return 'missing';
  const status = failure.$metadata?.httpStatusCode;
  const away =
    status === undefined
      ? typeof failure.code === 'string' || failure.name === 'TimeoutError'
      : status >= 500 || status === 429;
  return away ? 'unavailable' : 'other';
}
