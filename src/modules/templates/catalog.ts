import { fromPackageRoot } from '../../lib/package-root';
import { deepFreeze, loadJsonCatalog } from '../../lib/json-catalog';
import { namedTextIn } from '../../i18n/named-text';
import { TemplateFile, type Template } from './schemas';

export type TemplateCatalog = ReadonlyMap<string, Template>;

const CATALOG_DIR = fromPackageRoot('src', 'modules', 'templates', 'catalog');

/** A folder's templates as their files say them: their words are message ids. */
export function loadCatalog(dir = CATALOG_DIR): TemplateCatalog {
  return loadJsonCatalog(dir, TemplateFile, 'template') as TemplateCatalog;
}

/** A template with its words in `lang` (docs/i18n.md#template-and-canvas-text). */
export function templateIn(template: Template, lang: string): Template {
  const say = (id: string) => namedTextIn(lang, id);
  return {
    ...template,
    title: say(template.title),
    description: say(template.description),
    steps: template.steps.map((step) => ({
      ...step,
      name: say(step.name),
      instructions: say(step.instructions),
      // The criterion's title in the same language, so the step still finds it by title.
      ...(step.sort_criterium !== undefined && { sort_criterium: say(step.sort_criterium) }),
    })),
    clusters: template.clusters.map((cluster) => ({
      ...cluster,
      title: say(cluster.title),
      ...(cluster.ideas && {
        ideas: cluster.ideas.map((idea) => ({
          title: say(idea.title),
          ...(idea.content !== undefined && { content: say(idea.content) }),
        })),
      }),
    })),
    criteria: template.criteria.map((criterion) => ({ ...criterion, title: say(criterion.title) })),
    sections: template.sections.map((section) => ({ title: say(section.title) })),
  };
}

/** The built-in templates, read once when the module loads and never changed afterwards. */
export const TEMPLATES: TemplateCatalog = loadCatalog();

const inLanguage = new Map<string, TemplateCatalog>();

/** The built-in templates in `lang`, made on first use in each language. */
export function templatesIn(lang: string): TemplateCatalog {
  let found = inLanguage.get(lang);
  if (!found) {
    found = new Map([...TEMPLATES].map(([id, template]) => [id, deepFreeze(templateIn(template, lang))]));
    inLanguage.set(lang, found);
  }
  return found;
}
