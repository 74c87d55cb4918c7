// Builds the server for production: ES modules in dist/ (main.js, digest.js, export-worker.js),
// run with plain `node`, and the browser pages' files: the live screen's in dist/screen/, the
// participant page's in dist/participant/.
// Dependencies stay in node_modules (better-sqlite3 and sharp are native); the migrations and
// catalogs are read from the package folder at run time (src/lib/package-root.ts).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

rmSync('dist', { recursive: true, force: true });
await build({
  // The server, the by-hand daily digest (`node dist/digest.js`), and the thread that renders
  // exports (started by the server from beside its own file).
  entryPoints: { main: 'src/main.ts', digest: 'src/digest.ts', 'export-worker': 'src/modules/exports/worker.ts' },
  outdir: 'dist',
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
const pages = await writePageAssets('dist');
const written = Object.entries(pages).map(
  ([page, { script, stylesheet }]) => `dist/${page}/ (${script}, ${stylesheet})`,
);
console.log(`built dist/main.js, dist/digest.js, dist/export-worker.js, ${written.join(' and ')}`);
