import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding the service's `package.json`. Files the service reads at run time (the
 * migrations, the template and canvas catalogs) are named from here, so the same code finds them
 * when it runs from `src/` (development, tests) and bundled into `dist/` (production).
 */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('No package.json above the running code: cannot find the migrations and catalogs.');
    dir = parent;
  }
  return dir;
}

const ROOT = findPackageRoot();

/** A path below the package root (`fromPackageRoot('drizzle')`). */
export function fromPackageRoot(...segments: string[]): string {
  return join(ROOT, ...segments);
}
