// Builds the server for production into dist/ (scripts/build-server.mjs), run with plain `node`.
import { rmSync } from 'node:fs';
import { buildServer } from './build-server.mjs';

rmSync('dist', { recursive: true, force: true });
const pages = await buildServer('dist');
const written = Object.entries(pages).map(
  ([page, { script, stylesheet }]) => `dist/${page}/ (${script}, ${stylesheet})`,
);
console.log(`built dist/main.js, dist/digest.js, dist/export-worker.js, ${written.join(' and ')}`);
