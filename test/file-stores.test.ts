import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { testConfig } from '../src/config';
import { createDeps } from '../src/create-deps';
import { tablesOf } from '../src/db/database';
import { CommitInDoubt, DatabaseUnavailable } from '../src/db/errors';
import { localFileStore } from '../src/files/local-store';
import { parseFilesUrl, s3FileStore } from '../src/files/s3-store';
import { FileStoreUnavailable, type FileStore } from '../src/files/store';
import { objectName, saveFile } from '../src/modules/uploads/storage';
import { useS3 } from './helpers/s3';
import { silentServer } from './helpers/silent-tcp';

/*
 * Both stores through the one interface the service uses: the same calls, the same answers.
 *
 * Among the slowest files (about 10 s): deleting more than one request's 1,000 objects first
 * needs 1,005 objects put into the in-process s3rver, ten at a time so that each answers within
 * the store's 3 s on a busy machine (some 7 s).
 */

const s3 = useS3();
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

let opened = 0;
/** A store of its own per test: a fresh folder, or a fresh prefix of the bucket. */
const stores: Array<[string, () => Promise<FileStore>]> = [
  [
    'local folder',
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'workshops-store-'));
      folders.push(folder);
      return localFileStore(folder);
    },
  ],
  ['S3 bucket', () => s3FileStore(s3().filesConfig(`unit-${++opened}`).filesUrl!, s3().settings)],
];

const bytes = (text: string) => new TextEncoder().encode(text);

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return Buffer.from(await new Response(stream).arrayBuffer()).toString();
}

describe.each(stores)('the %s store', (_kind, open) => {
  it('puts an object, then reads it whole and as a stream, with its size and age', async () => {
    const files = await open();
    const before = Date.now();
    await files.put('uploads/abc_DEF-1', bytes('hello, store'), { contentType: 'text/plain' });
    expect((await files.get('uploads/abc_DEF-1'))?.toString()).toBe('hello, store');
    const stream = await files.stream('uploads/abc_DEF-1');
    expect(stream?.size).toBe(12);
    // Stores keep modification times to the second.
    expect(stream!.modifiedAt.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(await readAll(stream!.body)).toBe('hello, store');
  });

  it('answers null for a missing object to every read, and removing one is no error', async () => {
    const files = await open();
    expect(await files.get('uploads/missing')).toBeNull();
    expect(await files.stream('uploads/missing')).toBeNull();
    expect(await files.get('nowhere/at/all')).toBeNull();
    expect(await files.stream('nowhere/at/all')).toBeNull();
    await files.delete('uploads/missing');
    await files.put('uploads/there', bytes('x'));
    await files.delete('uploads/there');
    expect(await files.get('uploads/there')).toBeNull();
    expect(await files.list('uploads/')).toEqual([]);
  });

  it('lists by prefix in name order, whole names or parts of them, up to a limit', async () => {
    const files = await open();
    for (const name of ['exports/w1_b', 'exports/w1_a', 'exports/w2_a', 'uploads/w1_a'])
      await files.put(name, bytes(name));
    expect((await files.list('exports/')).map((object) => object.name)).toEqual([
      'exports/w1_a',
      'exports/w1_b',
      'exports/w2_a',
    ]);
    const part = await files.list('exports/w1_');
    expect(part.map((object) => [object.name, object.size])).toEqual([
      ['exports/w1_a', 12],
      ['exports/w1_b', 12],
    ]);
    expect(part[0]!.modifiedAt).toBeInstanceOf(Date);
    expect((await files.list('exports/', 2)).map((object) => object.name)).toEqual(['exports/w1_a', 'exports/w1_b']);
    expect((await files.list('')).length).toBe(4);
    expect(await files.list('nothing/')).toEqual([]);
  });

  it('lists a page at a time, each starting after the last name of the one before', async () => {
    const files = await open();
    for (const name of ['exports/a', 'exports/b', 'exports/c', 'exports/d', 'exports/e', 'uploads/a'])
      await files.put(name, bytes(name));
    const names = async (after?: string) => (await files.list('exports/', 2, after)).map((object) => object.name);
    expect(await names()).toEqual(['exports/a', 'exports/b']);
    expect(await names('exports/b')).toEqual(['exports/c', 'exports/d']);
    expect(await names('exports/d')).toEqual(['exports/e']);
    expect(await names('exports/e')).toEqual([]);
    // A name that is gone still marks where the next page starts.
    expect(await names('exports/bb')).toEqual(['exports/c', 'exports/d']);
    await expect(files.list('exports/', 2, '../a')).rejects.toThrow(/Not an object name/);
  });

  it('deletes by prefix everything under it and nothing else', async () => {
    const files = await open();
    const names = ['exports/w1_a', 'exports/w1_b', 'exports/w10_a', 'exports/w2_a', 'uploads/w1_a'];
    for (const name of names) await files.put(name, bytes(name));
    expect(await files.deletePrefix('exports/w1_')).toBe(2);
    expect((await files.list('')).map((object) => object.name)).toEqual([
      'exports/w10_a',
      'exports/w2_a',
      'uploads/w1_a',
    ]);
    expect(await files.deletePrefix('exports/w1_')).toBe(0);
    expect(await files.deletePrefix('exports/')).toBe(2);
    expect((await files.list('')).map((object) => object.name)).toEqual(['uploads/w1_a']);
  });

  it('deletes more objects by prefix than one request of the bucket takes', async () => {
    const files = await open();
    const names = Array.from({ length: 1_005 }, (_, index) => `bulk/item${String(index).padStart(4, '0')}`);
    // Ten at a time: the in-process bucket answers each within the store's 3 s even on a busy machine.
    for (let at = 0; at < names.length; at += 10)
      await Promise.all(names.slice(at, at + 10).map((name) => files.put(name, bytes('x'))));
    expect((await files.list('bulk/')).length).toBe(1_005);
    expect(await files.deletePrefix('bulk/')).toBe(1_005);
    expect(await files.list('bulk/')).toEqual([]);
  }, 60_000);

  it('refuses names that are not object names, before they reach a folder or the bucket', async () => {
    const files = await open();
    for (const name of [
      '../secret',
      'uploads/../../etc',
      'uploads/',
      '/uploads/a',
      'uploads//a',
      'up loads/a',
      'uploads/a.png',
      '',
    ]) {
      await expect(files.put(name, bytes('x')), name).rejects.toThrow(/Not an object name/);
      await expect(files.get(name), name).rejects.toThrow(/Not an object name/);
      await expect(files.delete(name), name).rejects.toThrow(/Not an object name/);
    }
    await expect(files.list('../')).rejects.toThrow(/Not an object name prefix/);
    await expect(files.deletePrefix('uploads/../')).rejects.toThrow(/Not an object name prefix/);
  });
});

describe('the local folder store', () => {
  it('keeps each object at <folder>/<name>, where files have always been, and lists only what could be an object', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'workshops-store-'));
    folders.push(folder);
    const files = localFileStore(folder);
    await files.put('uploads/abc', bytes('on disk'));
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(folder, 'uploads', 'abc'), 'utf8')).toBe('on disk');
    // An editor's backup or a stray temporary file beside the objects is not one of them.
    writeFileSync(join(folder, 'uploads', 'abc.swp'), 'not an object');
    expect((await files.list('uploads/')).map((object) => object.name)).toEqual(['uploads/abc']);
    // Names are never reused: an existing one is refused rather than overwritten.
    await expect(files.put('uploads/abc', bytes('again'))).rejects.toThrow(/EEXIST/);
    expect(readFileSync(join(folder, 'uploads', 'abc'), 'utf8')).toBe('on disk');
    await expect(files.put('uploads/abc', bytes('again'))).rejects.not.toBeInstanceOf(FileStoreUnavailable);
  });

  it('says the storage is unavailable when the folder cannot be written, as the bucket does', async () => {
    // Nobody, root included, may make folders in /sys (EPERM, EACCES or EROFS, by system): a disk
    // that is full, read-only or failing answers alike.
    const files = localFileStore('/sys/workshops-test-files');
    await expect(files.put('uploads/a', bytes('x'))).rejects.toBeInstanceOf(FileStoreUnavailable);
    // Reading what is not there is still no error.
    expect(await files.get('uploads/a')).toBeNull();
    expect(await files.list('uploads/')).toEqual([]);
  });
});

describe('the S3 bucket store', () => {
  it('reads FILES_URL as a bucket and a key prefix', () => {
    expect(parseFilesUrl('s3://workshop-files')).toEqual({ bucket: 'workshop-files', prefix: '' });
    expect(parseFilesUrl('s3://workshop-files/')).toEqual({ bucket: 'workshop-files', prefix: '' });
    expect(parseFilesUrl('s3://workshop-files/prod/eu')).toEqual({ bucket: 'workshop-files', prefix: 'prod/eu/' });
    expect(parseFilesUrl('s3://workshop-files/prod/')).toEqual({ bucket: 'workshop-files', prefix: 'prod/' });
  });

  it("keeps objects under FILES_URL's prefix, and two prefixes of one bucket apart", async () => {
    const one = await s3FileStore(s3().filesConfig('tenant/one').filesUrl!, s3().settings);
    const two = await s3FileStore(s3().filesConfig('tenant/two').filesUrl!, s3().settings);
    await one.put('uploads/same', bytes('one'));
    await two.put('uploads/same', bytes('two'));
    expect(await s3().keys('tenant/')).toEqual(['tenant/one/uploads/same', 'tenant/two/uploads/same']);
    expect((await one.get('uploads/same'))?.toString()).toBe('one');
    expect((await one.list('')).map((object) => object.name)).toEqual(['uploads/same']);
    expect(await one.deletePrefix('')).toBe(1);
    expect(await s3().keys('tenant/')).toEqual(['tenant/two/uploads/same']);
  });

  it('stores bytes exactly as given (no checksum framing written into the object)', async () => {
    const files = await s3FileStore(s3().filesConfig('exact').filesUrl!, s3().settings);
    const data = Uint8Array.from({ length: 70_000 }, (_, index) => (index * 31) % 256);
    await files.put('uploads/binary', data);
    expect((await files.stream('uploads/binary'))?.size).toBe(70_000);
    expect(Buffer.compare(await files.get('uploads/binary').then((b) => b!), Buffer.from(data))).toBe(0);
  });

  it('says the storage is unavailable when nothing answers at the endpoint', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const files = await s3FileStore('s3://workshop-files', {
      ...s3().settings,
      endpoint: `http://127.0.0.1:${closed}`,
    });
    await expect(files.put('uploads/a', bytes('x'))).rejects.toBeInstanceOf(FileStoreUnavailable);
    await expect(files.get('uploads/a')).rejects.toBeInstanceOf(FileStoreUnavailable);
    await expect(files.stream('uploads/a')).rejects.toBeInstanceOf(FileStoreUnavailable);
    await expect(files.list('uploads/')).rejects.toBeInstanceOf(FileStoreUnavailable);
  });

  it('says the storage is unavailable, within seconds, when the endpoint takes connections and never answers', async () => {
    const silent = await silentServer();
    try {
      // Limits of half a second here, not the 3 s a server uses (test/files-s3.test.ts waits for those).
      const limits = { connectMs: 500, answerMs: 500 };
      const files = await s3FileStore('s3://workshop-files', { ...s3().settings, endpoint: silent.url }, limits);
      for (const call of [() => files.put('uploads/a', bytes('x')), () => files.stream('uploads/a')]) {
        const started = Date.now();
        await expect(call()).rejects.toBeInstanceOf(FileStoreUnavailable);
        // Two attempts of at most half a second each, and the pause between them.
        expect(Date.now() - started).toBeLessThan(4_000);
      }
    } finally {
      await silent.close();
    }
  }, 30_000);

  it('leaves a refusal (an unknown access key) as the error it is: a setting to fix, not a pause', async () => {
    // s3rver checks the access key id (it does not check SigV4 signatures themselves).
    const files = await s3FileStore(s3().filesConfig().filesUrl!, { ...s3().settings, accessKeyId: 'NOT-A-KEY' });
    const refused = await files.put('uploads/a', bytes('x')).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(FileStoreUnavailable);
    expect(await s3().keys('uploads/')).toEqual([]);
  });
});

describe('a file whose row was being recorded when the commit went unanswered', () => {
  it('keeps its bytes when the commit is in doubt (the row may be there), and removes them when the write surely failed', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'workshops-store-'));
    folders.push(folder);
    const deps = await createDeps(testConfig({ databasePath: join(folder, 'w.db'), filesDir: join(folder, 'files') }));
    try {
      const real = deps.database.transaction.bind(deps.database);
      const input = { userId: null, name: 'notes.txt', mimetype: 'text/plain', data: bytes('kept') };
      // The commit went through, but its answer was lost on the way back.
      vi.spyOn(deps.database, 'transaction').mockImplementationOnce(async (fn) => {
        await real(fn);
        throw new CommitInDoubt('The database did not answer the commit.');
      });
      await expect(saveFile(deps, input)).rejects.toBeInstanceOf(CommitInDoubt);
      const { files } = tablesOf(deps.database.db);
      const [row] = await deps.database.db.select().from(files);
      expect(row).toBeDefined();
      expect((await deps.files.get(objectName(row!)))?.toString()).toBe('kept');

      vi.spyOn(deps.database, 'transaction').mockImplementationOnce(async () => {
        throw new DatabaseUnavailable('No database connection could be had in time.');
      });
      await expect(saveFile(deps, input)).rejects.toBeInstanceOf(DatabaseUnavailable);
      expect((await deps.files.list('uploads/')).map((object) => object.name)).toEqual([objectName(row!)]);
    } finally {
      vi.restoreAllMocks();
      await deps.database.close();
    }
  });
});
