import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildPageAssets, MANIFEST, type PageAssets, type PageName } from './build';

/** The files as built, and each gzipped once, for the browsers that accept it (all of them). */
export interface ServedAssets extends PageAssets {
  gzipped: Map<string, Uint8Array<ArrayBuffer>>;
}

/** Running the TypeScript sources (`npm start`, tests) rather than the bundle in `dist/`. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/*
 * Built once per process and page, and shared by every server it starts: the files depend on the
 * sources only, and a test process starts many servers.
 */
const assets = new Map<PageName, Promise<ServedAssets>>();

/**
 * A page's files: bundled from the sources on first use when running them (so an edit shows at
 * the next start), or read from `dist/<page>/`, beside the server's bundle, in production.
 */
export function pageAssets(page: PageName): Promise<ServedAssets> {
  let found = assets.get(page);
  if (!found) {
    found = loadAssets(page)
      .then(withGzip)
      .catch((err: unknown) => {
        // A failed build is not kept: the next request tries again (after the sources are fixed).
        assets.delete(page);
        throw err;
      });
    assets.set(page, found);
  }
  return found;
}

async function loadAssets(page: PageName): Promise<PageAssets> {
  return FROM_SOURCES ? buildPageAssets(page) : builtAssets(page);
}

function withGzip(built: PageAssets): ServedAssets {
  const gzipped = new Map(
    [...built.files].map(([name, contents]) => [name, new Uint8Array(gzipSync(contents, { level: 9 }))] as const),
  );
  return { ...built, gzipped };
}

/** Reads what `npm run build` wrote to `dist/<page>/` (this module is then part of `dist/main.js`). */
function builtAssets(page: PageName): PageAssets {
  const dir = join(dirname(fileURLToPath(import.meta.url)), page);
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Omit<PageAssets, 'files'>;
  const messages = manifest.messages ?? {};
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const name of [manifest.script, manifest.stylesheet, ...Object.values(messages)])
    files.set(name, readFileSync(join(dir, name)));
  return { ...manifest, messages, files };
}
