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
  /** Size and age of the object, or null. */
  head(name: string): Promise<ObjectInfo | null>;
  /** Removes the object; a missing one is not an error. */
  delete(name: string): Promise<void>;
  /** Objects whose names start with `prefix` (`exports/`, or `exports/abc` for a part of a name), by name, at most `limit`. */
  list(prefix: string, limit?: number): Promise<ListedObject[]>;
  /** Removes every object whose name starts with `prefix`; answers how many went. */
  deletePrefix(prefix: string): Promise<number>;
}

/**
 * The storage could not be reached or failed on its side (after the client's own retries):
 * requests answer 503 with Retry-After, as for the database (CONTRACT §10).
 */
export class FileStoreUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FileStoreUnavailable';
  }
}

const SEGMENT = '[A-Za-z0-9_-]{1,128}';
const NAME = new RegExp(`^${SEGMENT}(/${SEGMENT})*$`);
const PREFIX = new RegExp(`^(${SEGMENT}/)*[A-Za-z0-9_-]{0,128}$`);

export function isName(name: string): boolean {
  return NAME.test(name);
}

/** Throws on a name no store may be asked for: the only guard between a name and a path. */
export function checkName(name: string): string {
  if (!isName(name)) throw new Error(`Not an object name: ${JSON.stringify(name)}`);
  return name;
}

export function checkPrefix(prefix: string): string {
  if (!PREFIX.test(prefix)) throw new Error(`Not an object name prefix: ${JSON.stringify(prefix)}`);
  return prefix;
}
