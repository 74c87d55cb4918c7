import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as v from 'valibot';

/**
 * Reads and validates every `<slug>.json` of a catalog folder (templates, predefined canvases),
 * frozen, by slug. A bad file stops the start with a message naming the file and the member,
 * rather than failing when someone picks that entry; each file's `id` must be its slug.
 */
export function loadJsonCatalog<S extends v.GenericSchema<unknown, { id: string }>>(
  dir: string,
  schema: S,
  what: string,
): ReadonlyMap<string, v.InferOutput<S>> {
  const catalog = new Map<string, v.InferOutput<S>>();
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const path = join(dir, file);
    const parsed = v.safeParse(schema, JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) {
      const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? '(file)'}: ${issue.message}`);
      throw new Error(`Invalid ${what} ${path}:\n${problems.join('\n')}`);
    }
    const slug = basename(file, '.json');
    if (parsed.output.id !== slug) throw new Error(`${what} ${path} must have the id "${slug}".`);
    catalog.set(slug, deepFreeze(parsed.output));
  }
  return catalog;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
