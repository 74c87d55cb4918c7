import { mkdir, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { checkName, checkPrefix, isName, type FileStore, type ListedObject, type ObjectInfo, type ObjectStream } from './store';

/** `FILES_DIR`: each object is the file `<root>/<name>`, so `uploads/<key>` lives where it always has. */
export function localFileStore(folder: string): FileStore {
  const root = resolve(folder);
  const pathOf = (name: string) => join(root, ...checkName(name).split('/'));

  return {
    location: `the folder ${root}`,

    async put(name, data) {
      const path = pathOf(name);
      await mkdir(dirname(path), { recursive: true });
      try {
        await writeFile(path, data, { flag: 'wx' });
      } catch (err) {
        // A disk that filled up mid-write leaves no half file; an existing one is someone else's.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(path, { force: true });
        throw err;
      }
    },

    async get(name) {
      return missingAsNull(() => readFile(pathOf(name)));
    },

    async stream(name) {
      const path = pathOf(name);
      // Opened before its size is read: a file removed in between cannot answer with a length and no body.
      const handle = await missingAsNull(() => open(path, 'r'));
      if (!handle) return null;
      try {
        const info = await handle.stat();
        if (!info.isFile()) {
          await handle.close();
          return null;
        }
        const body = Readable.toWeb(handle.createReadStream()) as unknown as ReadableStream<Uint8Array>;
        return { size: info.size, modifiedAt: info.mtime, body } satisfies ObjectStream;
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async head(name) {
      const info = await missingAsNull(() => stat(pathOf(name)));
      return info?.isFile() ? ({ size: info.size, modifiedAt: info.mtime } satisfies ObjectInfo) : null;
    },

    async delete(name) {
      await rm(pathOf(name), { force: true });
    },

    async list(prefix, limit = Infinity) {
      return listUnder(root, checkPrefix(prefix), limit);
    },

    async deletePrefix(prefix) {
      const found = await listUnder(root, checkPrefix(prefix), Infinity);
      for (const object of found) await rm(pathOf(object.name), { force: true });
      return found.length;
    },
  };
}

/** Walks the folder the prefix names (and the ones below it); names in byte order, as a bucket lists them. */
async function listUnder(root: string, prefix: string, limit: number): Promise<ListedObject[]> {
  const cut = prefix.lastIndexOf('/');
  const names: string[] = [];
  const walk = async (relative: string, start: string): Promise<void> => {
    const entries = await missingAsNull(() => readdir(join(root, ...relative.split('/').filter(Boolean)), { withFileTypes: true }));
    for (const entry of entries ?? []) {
      if (!entry.name.startsWith(start)) continue;
      const name = `${relative}${entry.name}`;
      if (entry.isDirectory()) await walk(`${name}/`, '');
      // Only what a put could have written: anything else in the folder is not an object.
      else if (entry.isFile() && isName(name)) names.push(name);
    }
  };
  await walk(prefix.slice(0, cut + 1), prefix.slice(cut + 1));
  names.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const found: ListedObject[] = [];
  for (const name of names.slice(0, limit)) {
    const info = await missingAsNull(() => stat(join(root, ...name.split('/'))));
    if (info) found.push({ name, size: info.size, modifiedAt: info.mtime });
  }
  return found;
}

async function missingAsNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw err;
  }
}
