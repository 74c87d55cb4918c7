import { mkdir, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { objectStore, type FileStore, type ListedObject, type StoreFailure } from './store';

/** `FILES_DIR`: each object is the file `<root>/<name>`, so `uploads/<key>` lives where it always has. */
export function localFileStore(folder: string): FileStore {
  const root = resolve(folder);
  const pathOf = (name: string) => join(root, ...name.split('/'));

  return objectStore({
    location: `the folder ${root}`,

    async put(name, data) {
      const path = pathOf(name);
      await mkdir(dirname(path), { recursive: true });
      try {
        await writeFile(path, data, { flag: 'wx' });
      } catch (err) {
        // A disk that filled up mid-write leaves no half file; an existing one is someone else's.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(path, { force: true }).catch(() => {});
        throw err;
      }
    },

    async open(name) {
      // Opened before its size is read: a file removed in between cannot answer with a length and no body.
      const handle = await open(pathOf(name), 'r');
      try {
        const info = await handle.stat();
        if (!info.isFile()) {
          await handle.close();
          return null;
        }
        const body = Readable.toWeb(handle.createReadStream()) as unknown as ReadableStream<Uint8Array>;
        return { size: info.size, modifiedAt: info.mtime, body };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async remove(names) {
      for (const name of names) await rm(pathOf(name), { force: true });
    },

    async page(prefix, after, max) {
      const names = (await namesUnder(root, prefix)).filter(
        (name) => after === undefined || byteOrder(name, after) > 0,
      );
      const objects: ListedObject[] = [];
      for (const name of names.slice(0, max)) {
        const info = await stat(pathOf(name)).catch((err: unknown) => {
          // Removed since the folder was read.
          if (classify(err) === 'missing') return null;
          throw err;
        });
        if (info) objects.push({ name, size: info.size, modifiedAt: info.mtime });
      }
      return { objects, more: names.length > max };
    },

    classify,
  });
}

/** Every file under the folder the prefix names (and the ones below it) whose name starts with it, in byte order, as a bucket lists keys. */
async function namesUnder(root: string, prefix: string): Promise<string[]> {
  const cut = prefix.lastIndexOf('/');
  const names: string[] = [];
  const walk = async (relative: string, start: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(root, ...relative.split('/').filter(Boolean)), { withFileTypes: true });
    } catch (err) {
      if (classify(err) === 'missing') return;
      throw err;
    }
    for (const entry of entries) {
      if (!entry.name.startsWith(start)) continue;
      const name = `${relative}${entry.name}`;
      if (entry.isDirectory()) await walk(`${name}/`, '');
      else if (entry.isFile()) names.push(name);
    }
  };
  await walk(prefix.slice(0, cut + 1), prefix.slice(cut + 1));
  return names.sort(byteOrder);
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * Not found (or a folder where a file was asked for) is a missing object. An existing name is a
 * bug (names are never reused) and Node's own argument errors are too; every other error of the
 * system (a full or read-only disk, permissions, I/O errors, too many open files) is the storage
 * failing: a 503, as the bucket's failures are.
 */
function classify(err: unknown): StoreFailure {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return 'missing';
  if (typeof code !== 'string' || code === 'EEXIST' || code.startsWith('ERR_')) return 'other';
  return 'unavailable';
}
