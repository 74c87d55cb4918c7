/*
 * Where the service keeps the bytes of uploads, avatars and exports: a folder of the machine
 * (`FILES_DIR`) or an S3-compatible bucket (`FILES_URL`). Rows in `files` say what an object is;
 * the store only holds bytes under a name, so either store serves every link the same way.
 */

/** What a store knows of an object besides its bytes. */
export interface ObjectInfo {
  size: number;
  modifiedAt: Date;
}

/** An object read as a stream: the body is read once, by whoever answers the request. */
export interface ObjectStream extends ObjectInfo {
  body: ReadableStream<Uint8Array>;
}

/** An object found by `list`. */
export interface ListedObject extends ObjectInfo {
  name: string;
}

/**
 * Bytes under names such as `uploads/<key>`: segments of letters, digits, `_` and `-`, joined by
 * `/`. A name that is not one is refused (it never reaches the file system or the bucket). A
 * missing object is `null` to every read, never an error: the caller decides what that means.
 * A store that is away or failing on its side throws `FileStoreUnavailable` (a 503).
 */
export interface FileStore {
  /** Where the files go, for the start line (`the folder …`, `the bucket …`; never a credential). */
  readonly location: string;
  /**
   * Stores `data` under `name`. Names carry fresh random keys and are never reused: the local
   * store refuses an existing name, the bucket would replace it.
   */
  put(name: string, data: Uint8Array, options?: { contentType?: string }): Promise<void>;
  /** The whole object, or null. */
  get(name: string): Promise<Buffer | null>;
  /** The object as a stream with its size, or null; nothing is buffered. */
  stream(name: string): Promise<ObjectStream | null>;
  /** Removes the object; a missing one is not an error. */
  delete(name: string): Promise<void>;
  /**
   * Objects whose names start with `prefix` (`exports/`, or `exports/abc` for a part of a name),
   * in byte order of their names, at most `limit`, starting after the name `after` when given (so
   * a long listing is read a page at a time).
   */
  list(prefix: string, limit?: number, after?: string): Promise<ListedObject[]>;
  /** Removes every object whose name starts with `prefix`; answers how many went. */
  deletePrefix(prefix: string): Promise<number>;
}

/**
 * The storage could not be reached or failed on its side (after the client's own retries):
 * requests answer 503 with Retry-After, as for the database (docs/configuration.md#object-storage).
 */
export class FileStoreUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FileStoreUnavailable';
  }
}

/** What a store's error means: an object that is not there, the storage away or failing, or neither (a bug, a setting to fix). */
export type StoreFailure = 'missing' | 'unavailable' | 'other';

/**
 * The plain operations each kind of store provides (`local-store.ts`, `s3-store.ts`). They are
 * only ever called with names `objectStore` has checked, and throw their errors as they come:
 * `classify` says what each one means.
 */
export interface StoreBackend {
  readonly location: string;
  put(name: string, data: Uint8Array, contentType: string | undefined): Promise<void>;
  /** The object as a stream; null for something under the name that is not an object (a folder). */
  open(name: string): Promise<ObjectStream | null>;
  /** Removes the objects (at most `PAGE` at once); missing ones are no error. */
  remove(names: readonly string[]): Promise<void>;
  /**
   * Up to `max` entries under `prefix` after `after`, in byte order of their names, and whether
   * more follow. Entries whose names are not object names may come too (`objectStore` skips them);
   * they still count as the page's last name.
   */
  page(prefix: string, after: string | undefined, max: number): Promise<{ objects: ListedObject[]; more: boolean }>;
  classify(err: unknown): StoreFailure;
}

/** Listed and removed this many at a time: what a bucket lists, and deletes in one request, at most. */
const PAGE = 1000;

/**
 * A `FileStore` over a backend: the one place that checks names and prefixes, turns a missing
 * object into null and a storage away into `FileStoreUnavailable`, and removes by prefix.
 */
export function objectStore(backend: StoreBackend): FileStore {
  const failure = (what: string, err: unknown): unknown => {
    if (backend.classify(err) !== 'unavailable') return err;
    const message = err instanceof Error ? err.message || err.name : String(err);
    return new FileStoreUnavailable(`The file storage could not ${what}: ${message}`, { cause: err });
  };
  const attempt = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      throw failure(what, err);
    }
  };
  const missingAsNull = async <T>(what: string, call: () => Promise<T | null>): Promise<T | null> => {
    try {
      return await call();
    } catch (err) {
      if (backend.classify(err) === 'missing') return null;
      throw failure(what, err);
    }
  };

  const list = async (prefix: string, limit: number, after: string | undefined): Promise<ListedObject[]> => {
    checkPrefix(prefix);
    if (after !== undefined) checkName(after);
    const found: ListedObject[] = [];
    let marker = after;
    while (found.length < limit) {
      const { objects, more } = await attempt('list objects', () =>
        backend.page(prefix, marker, Math.min(PAGE, limit - found.length)),
      );
      // Only what a put could have written: anything else beside the objects is not one of them.
      for (const object of objects) if (isName(object.name) && found.length < limit) found.push(object);
      marker = objects.at(-1)?.name;
      if (!more || marker === undefined) break;
    }
    return found;
  };

  return {
    location: backend.location,

    async put(name, data, options = {}) {
      checkName(name);
      await attempt('store an object', () => backend.put(name, data, options.contentType));
    },

    async get(name) {
      checkName(name);
      return missingAsNull('read an object', async () => {
        const object = await backend.open(name);
        return object && Buffer.from(await new Response(object.body).arrayBuffer());
      });
    },

    async stream(name) {
      checkName(name);
      return missingAsNull('read an object', () => backend.open(name));
    },

    async delete(name) {
      checkName(name);
      await missingAsNull('remove an object', () => backend.remove([name]));
    },

    list(prefix, limit = Infinity, after) {
      return list(prefix, limit, after);
    },

    // Listed whole before anything goes: a listing paged while its objects are removed may skip some.
    async deletePrefix(prefix) {
      const objects = await list(prefix, Infinity, undefined);
      for (let at = 0; at < objects.length; at += PAGE) {
        const batch = objects.slice(at, at + PAGE).map((object) => object.name);
        await attempt('remove objects', () => backend.remove(batch));
      }
      return objects.length;
    },
  };
}

/**
 * One segment of an object name, and so also a stored file's container or key: the only characters
 * and lengths that can ever reach a folder or a bucket.
 */
const SEGMENT = '[A-Za-z0-9_-]{1,128}';
const SEGMENT_ONLY = new RegExp(`^${SEGMENT}$`);
const NAME = new RegExp(`^${SEGMENT}(/${SEGMENT})*$`);
const PREFIX = new RegExp(`^(${SEGMENT}/)*[A-Za-z0-9_-]{0,128}$`);

export function isSegment(segment: string): boolean {
  return SEGMENT_ONLY.test(segment);
}

function isName(name: string): boolean {
  return NAME.test(name);
}

/** Throws on a name no store may be asked for: `objectStore` checks every name before its backend sees it. */
function checkName(name: string): string {
  if (!isName(name)) throw new Error(`Not an object name: ${JSON.stringify(name)}`);
  return name;
}

function checkPrefix(prefix: string): string {
  if (!PREFIX.test(prefix)) throw new Error(`Not an object name prefix: ${JSON.stringify(prefix)}`);
  return prefix;
}
