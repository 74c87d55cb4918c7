import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildScreenAssets, MANIFEST, type ScreenAssets } from './build';

/** The files as built, and each gzipped once, for the browsers that accept it (all of them). */
export interface ServedAssets extends ScreenAssets {
  gzipped: Map<string, Uint8Array<ArrayBuffer>>;
}

/** Running the TypeScript sources (`npm start`, tests) rather than the bundle in `dist/`. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/*
 * Built once per process and shared by every server it starts: the files depend on the sources
 * only, and a test process starts many servers.
 */
let assets: Promise<ServedAssets> | undefined;

/**
 * The screen's files: bundled from the sources on first use when running them (so an edit shows
 * at the next start), or read from `dist/screen/`, beside the server's bundle, in production.
 */
export function screenAssets(): Promise<ServedAssets> {
  assets ??= loadAssets()
    .then(withGzip)
    .catch((err: unknown) => {
      // A failed build is not kept: the next request tries again (after the sources are fixed).
      assets = undefined;
      throw err;
    });
  return assets;
}

async function loadAssets(): Promise<ScreenAssets> {
  return FROM_SOURCES ? buildScreenAssets() : builtAssets();
}

function withGzip(built: ScreenAssets): ServedAssets {
  const gzipped = new Map([...built.files].map(([name, contents]) => [name, new Uint8Array(gzipSync(contents, { level: 9 }))] as const));
  return { ...built, gzipped };
}

/** Reads what `npm run build` wrote to `dist/screen/` (this module is then part of `dist/main.js`). */
function builtAssets(): ScreenAssets {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'screen');
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as { script: string; stylesheet: string };
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const name of [manifest.script, manifest.stylesheet]) files.set(name, readFileSync(join(dir, name)));
  return { ...manifest, files };
}
