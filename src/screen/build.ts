import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The live screen's browser files: the page script (`app.ts` with the SDK's entry points and
 * their dependencies: socket.io-client, Yjs, y-websocket) and its stylesheet, minified, each
 * named by a hash of its content so browsers may keep them for good.
 *
 * Development builds them in memory on first use; `npm run build` writes them to `dist/screen/`
 * so production serves them without esbuild, a devDependency the image does not hold.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
/** The file beside the built ones that names them (`{script, stylesheet}`). */
export const MANIFEST = 'manifest.json';

/** The screen's built browser files, by their hashed names. */
export interface ScreenAssets {
  /** The page script's file name (`app-<hash>.js`). */
  script: string;
  /** The stylesheet's file name (`screen-<hash>.css`). */
  stylesheet: string;
  files: Map<string, Uint8Array<ArrayBuffer>>;
}

/** Bundles the page script and stylesheet in memory. Needs esbuild (a devDependency). */
export async function buildScreenAssets(): Promise<ScreenAssets> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { app: join(HERE, 'app.ts'), screen: join(HERE, 'screen.css') },
    outdir: '/screen',
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    write: false,
    logLevel: 'warning',
  });
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  let script = '';
  let stylesheet = '';
  for (const file of result.outputFiles) {
    const name = file.path.slice('/screen/'.length);
    files.set(name, new Uint8Array(file.contents));
    if (name.endsWith('.js')) script = name;
    if (name.endsWith('.css')) stylesheet = name;
  }
  return { script, stylesheet, files };
}

/** Writes the built files and a manifest naming them into `dir` (the production build: `dist/screen`). */
export async function writeScreenAssets(dir: string): Promise<ScreenAssets> {
  const assets = await buildScreenAssets();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, contents] of assets.files) writeFileSync(join(dir, name), contents);
  writeFileSync(join(dir, MANIFEST), JSON.stringify({ script: assets.script, stylesheet: assets.stylesheet }));
  return assets;
}
