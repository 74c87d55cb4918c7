import { fromPackageRoot } from '../../lib/package-root';
import { loadJsonCatalog } from '../../lib/json-catalog';
import { TemplateFile, type Template } from './schemas';

export type TemplateCatalog = ReadonlyMap<string, Template>;

const CATALOG_DIR = fromPackageRoot('src', 'modules', 'templates', 'catalog');

export function loadCatalog(dir = CATALOG_DIR): TemplateCatalog {
  return loadJsonCatalog(dir, TemplateFile, 'template') as TemplateCatalog;
}

/** The built-in templates, read once when the module loads and never changed afterwards. */
export const TEMPLATES: TemplateCatalog = loadCatalog();
