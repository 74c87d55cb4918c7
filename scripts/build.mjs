// Builds the server for production: one ES module, dist/main.js, run with plain `node`.
// Dependencies stay in node_modules (better-sqlite3 and sharp are native); the migrations and
// catalogs are read from the package folder at run time (src/lib/package-root.ts).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
console.log('built dist/main.js');
