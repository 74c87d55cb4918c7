// Builds the server for production: ES modules in dist/ (main.js, digest.js), run with plain `node`.
// Dependencies stay in node_modules (better-sqlite3 and sharp are native); the migrations and
// catalogs are read from the package folder at run time (src/lib/package-root.ts).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
await build({
  // The server, and the by-hand daily digest (`node dist/digest.js`).
  entryPoints: { main: 'src/main.ts', digest: 'src/digest.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
console.log('built dist/main.js and dist/digest.js');
