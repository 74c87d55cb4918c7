import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { TemplateFile, type Template } from './schemas';

export type TemplateCatalog = ReadonlyMap<string, Template>;

const CATALOG_DIR = join(dirname(fileURLToPath(import.meta.url)), 'catalog');

/**
 * Reads and validates every `<slug>.json` of a catalog folder. A bad file stops the start with a
 * message naming the file and the member, rather than failing when someone picks that template.
 */
export function loadCatalog(dir = CATALOG_DIR): TemplateCatalog {
  const catalog = new Map<string, Template>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json')).sort()) {
    const path = join(dir, file);
    const parsed = v.safeParse(TemplateFile, JSON.parse(readFileSync(path, 'utf8')));
    if (!parsed.success) {
      const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? '(file)'}: ${issue.message}`);
      throw new Error(`Invalid template ${path}:\n${problems.join('\n')}`);
    }
    if (parsed.output.id !== basename(file, '.json')) throw new Error(`Template ${path} must have the id "${basename(file, '.json')}".`);
    catalog.set(parsed.output.id, deepFreeze(parsed.output));
  }
  return catalog;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** The built-in templates, read once when the module loads and never changed afterwards. */
export const TEMPLATES: TemplateCatalog = loadCatalog();
