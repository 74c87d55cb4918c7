// Builds the server for production: ES modules in dist/ (main.js, digest.js, export-worker.js),
// run with plain `node`.
// Dependencies stay in node_modules (better-sqlite3 and sharp are native); the migrations and
// catalogs are read from the package folder at run time (src/lib/package-root.ts).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

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
console.log('built dist/main.js, dist/digest.js and dist/export-worker.js');
