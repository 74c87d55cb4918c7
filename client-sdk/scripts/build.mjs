// Builds the package into dist/: one ES module per entry point (index, live, canvas) with the code
// they share in chunks, dependencies left as imports, and the declarations beside them.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts', 'src/live.ts', 'src/canvas.ts'],
  outdir: 'dist',
  bundle: true,
  // Shared modules become chunks, so `ApiError` is one class whichever entry point threw it.
  splitting: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
console.log('built client-sdk/dist (index, live, canvas)');
