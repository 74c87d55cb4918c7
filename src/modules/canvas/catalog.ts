import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { PredefinedCanvasFile, toPredefinedCanvas, type PredefinedCanvas, type PredefinedCanvasOutput } from './schemas';

export interface CanvasCatalog {
  /** The predefined canvases as validated from their files, by slug. */
  readonly canvases: ReadonlyMap<string, PredefinedCanvas>;
  /** Their API output, in slug order, built once. */
  readonly outputs: readonly PredefinedCanvasOutput[];
}

const CATALOG_DIR = join(dirname(fileURLToPath(import.meta.url)), 'catalog');

/**
 * Reads and validates every `<slug>.json` of a catalog folder. A bad file stops the start with a
 * message naming the file and the member, rather than failing when someone picks that canvas.
 */
export function loadCanvasCatalog(dir = CATALOG_DIR): CanvasCatalog {
  const canvases = new Map<string, PredefinedCanvas>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json')).sort()) {
    const path = join(dir, file);
    const parsed = v.safeParse(PredefinedCanvasFile, JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) {
      const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? '(file)'}: ${issue.message}`);
      throw new Error(`Invalid predefined canvas ${path}:\n${problems.join('\n')}`);
    }
    const slug = basename(file, '.json');
    if (parsed.output.id !== slug) throw new Error(`Predefined canvas ${path} must have the id "${slug}".`);
    canvases.set(slug, deepFreeze(parsed.output));
  }
  const outputs = [...canvases.values()].map(toPredefinedCanvas);
  return { canvases, outputs: deepFreeze(outputs) };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** The built-in predefined canvases, read once when the module loads. */
export const CANVASES: CanvasCatalog = loadCanvasCatalog();
