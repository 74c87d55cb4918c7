import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A ZIP archive as Debian's `unzip` reads it: its entries in the order it stores them, and their bytes. */
export interface Unzipped {
  names: string[];
  files: Map<string, Buffer>;
}

/**
 * Lists, tests and extracts `archive` with `unzip` (not with the library that wrote it), from a
 * temporary folder removed afterwards. Fails when `unzip` finds the archive damaged.
 */
export async function unzipArchive(archive: Uint8Array): Promise<Unzipped> {
  const dir = await mkdtemp(join(tmpdir(), 'unzip-test-'));
  try {
    const path = join(dir, 'archive.zip');
    await writeFile(path, archive);
    await run('unzip', ['-tq', path]);
    const names = (await run('unzip', ['-Z1', path])).stdout.split('\n').filter(Boolean);
    await run('unzip', ['-q', path, '-d', join(dir, 'out')]);
    const files = new Map<string, Buffer>();
    for (const name of names) files.set(name, await readFile(join(dir, 'out', name)));
    return { names, files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
