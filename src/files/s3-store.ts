import type { S3Settings } from '../config';
import { checkName, checkPrefix, FileStoreUnavailable, isName, type FileStore, type ListedObject } from './store';

/** `s3://bucket/optional/prefix` split into the bucket and the key prefix (`''` or ending in `/`). */
export function parseFilesUrl(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!match) throw new Error(`Not an s3:// URL: ${url}`);
  const path = match[2]!.replace(/\/+$/, '');
  return { bucket: match[1]!, prefix: path ? `${path}/` : '' };
}

/** S3 lists, and deletes in one request, at most this many keys. */
const PAGE = 1000;

/** `FILES_URL`: each object is the key `<prefix><name>` in the bucket; any instance reads what another wrote. */
export async function s3FileStore(url: string, settings: S3Settings): Promise<FileStore> {
  // Loaded only by instances that use a bucket. A dynamic import, because the build hoists static
  // imports of packages to the top of the bundle, where every instance would load the SDK.
  const { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsCommand, PutObjectCommand, S3Client } = await import(
    '@aws-sdk/client-s3'
  );
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
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey, sessionToken: settings.sessionToken }
        : undefined,
    // The client's defaults ('WHEN_SUPPORTED') add CRC32 checksums to every upload. Tried against
    // s3rver: a buffer with its `x-amz-checksum-crc32` header round-trips, but a streamed body goes
    // out `aws-chunked` with a trailing checksum, which s3rver (like other S3-compatible servers
    // older than that scheme) stores verbatim, framing and all. So checksums only where an
    // operation requires one (DeleteObjects); the signature covers each body's SHA-256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const keyOf = (name: string) => `${base}${checkName(name)}`;

  // ListObjects (v1), paged by the last key seen: every S3-compatible server pages it alike,
  // where some (s3rver among them) fail to make v2's continuation tokens.
  async function list(prefix: string, limit: number): Promise<ListedObject[]> {
    const found: ListedObject[] = [];
    let marker: string | undefined;
    for (;;) {
      const page = await send('list objects', () =>
        client.send(new ListObjectsCommand({ Bucket: bucket, Prefix: `${base}${checkPrefix(prefix)}`, Marker: marker, MaxKeys: Math.min(PAGE, limit - found.length) })),
      );
      const contents = page.Contents ?? [];
      for (const object of contents) {
        const name = object.Key?.startsWith(base) ? object.Key.slice(base.length) : '';
        // Keys someone else put beside ours are left alone, as the folder's stray files are.
        if (isName(name)) found.push({ name, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) });
      }
      marker = contents.at(-1)?.Key;
      if (!page.IsTruncated || !marker || found.length >= limit) return found.slice(0, limit);
    }
  }

  return {
    location: `the bucket ${bucket}${base ? ` under ${base}` : ''}${settings.endpoint ? ` at ${new URL(settings.endpoint).host}` : ''}`,

    async put(name, data, options = {}) {
      await send('store an object', () =>
        client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(name), Body: data, ContentLength: data.byteLength, ContentType: options.contentType })),
      );
    },

    async get(name) {
      const object = await missingAsNull('read an object', () => client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(name) })));
      if (!object?.Body) return null;
      const bytes = await send('read an object', () => object.Body!.transformToByteArray());
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },

    async stream(name) {
      const object = await missingAsNull('read an object', () => client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(name) })));
      if (!object?.Body) return null;
      return {
        size: object.ContentLength ?? 0,
        modifiedAt: object.LastModified ?? new Date(0),
        body: object.Body.transformToWebStream() as ReadableStream<Uint8Array>,
      };
    },

    async head(name) {
      const object = await missingAsNull('look up an object', () => client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(name) })));
      return object ? { size: object.ContentLength ?? 0, modifiedAt: object.LastModified ?? new Date(0) } : null;
    },

    async delete(name) {
      await send('remove an object', () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(name) })));
    },

    async list(prefix, limit = Infinity) {
      return list(prefix, limit);
    },

    // Listed whole before anything goes: a listing paged while its objects are removed may skip some.
    async deletePrefix(prefix) {
      const objects = await list(prefix, Infinity);
      for (let at = 0; at < objects.length; at += PAGE) {
        const batch = objects.slice(at, at + PAGE);
        const answer = await send('remove objects', () =>
          client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch.map((object) => ({ Key: keyOf(object.name) })), Quiet: true } })),
        );
        const [first, ...others] = answer.Errors ?? [];
        if (first) throw new Error(`Object storage kept ${others.length + 1} of ${batch.length} objects under ${prefix}: ${first.Key} ${first.Code} ${first.Message}`);
      }
      return objects.length;
    },
  };
}

/** A read of an object that is not there: null (S3 says NoSuchKey, or a bare 404 to a HEAD). */
async function missingAsNull<T>(what: string, call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (err) {
    const name = (err as Error).name;
    if (name === 'NoSuchKey' || name === 'NotFound') return null;
    throw unavailable(what, err);
  }
}

async function send<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw unavailable(what, err);
  }
}

/**
 * Network failures, timeouts, throttling and the server's own errors (the client has already
 * retried them) become `FileStoreUnavailable`: a 503, try again. Anything else (access denied, no
 * such bucket) is a setting to fix and stays as it is.
 */
function unavailable(what: string, err: unknown): unknown {
  const failure = err as { $metadata?: { httpStatusCode?: number }; code?: unknown; name?: string; message?: string };
  const status = failure.$metadata?.httpStatusCode;
  const away = status === undefined ? typeof failure.code === 'string' || failure.name === 'TimeoutError' : status >= 500 || status === 429;
  return away ? new FileStoreUnavailable(`Object storage could not ${what}: ${failure.message ?? failure.name}`, { cause: err }) : err;
}
