// The server's build, for production (`npm run build`: scripts/build.mjs) and for the tests that
// start it as a process (test/setup/server-bundle.ts): ES modules in `outdir` (main.js, digest.js,
// export-worker.js), run with plain `node`, and the browser pages' files beside them
// (`outdir`/console/, screen/, participant/), which the built server serves from there.
// Dependencies stay in node_modules (better-sqlite3 and sharp are native); the migrations and
// catalogs are read from the package folder at run time (src/lib/package-root.ts), so `outdir`
// must lie inside it.
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

/** Builds into `outdir` (which it does not empty first); resolves with each page's script and stylesheet. */
export async function buildServer(outdir) {
  await build({
    // The server, the by-hand daily digest (`node dist/digest.js`), and the thread that renders
    // exports (started by the server from beside its own file).
    entryPoints: { main: 'src/main.ts', digest: 'src/digest.ts', 'export-worker': 'src/modules/exports/worker.ts' },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  // The pages' scripts and stylesheets, which production serves from here (it has no esbuild).
  const { writePageAssets } = await tsImport('../src/pages/build.ts', import.meta.url);
  return writePageAssets(outdir);
}
