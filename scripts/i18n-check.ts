import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isStructurallySame, parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import {
  catalogTags,
  flattenMessages,
  PSEUDO_LANGUAGE,
  readCatalogTree,
  SOURCE_LANGUAGE,
  type CatalogTree,
} from '../src/i18n/catalog';

/*
 * What `npm run i18n:check` holds the catalogs to (docs/i18n.md#the-checks): every language has
 * exactly the English ids, every message parses and has the English one's placeholders, each
 * plural has every category its language needs, `$meta` says what the pages need, the files are
 * in their sorted form, and every English id is used somewhere in the code.
 */

/**
 * Namespaces a language may still lack while their English text is being moved into the
 * catalogs: they fall back to English meanwhile. The issue is not done while this has anything in
 * it; what is present is still held to the same placeholders.
 */
export const PENDING: readonly string[] = [];

export interface CheckOptions {
  pending?: readonly string[];
  /** Folders whose `.ts`/`.tsx`/`.json` files must name every English id (none: the use check is skipped). */
  codeDirs?: readonly string[];
}

export interface CheckReport {
  languages: string[];
  messages: number;
  errors: string[];
  /** Per language, how many messages it lacks in a pending namespace. */
  pendingMissing: Map<string, number>;
}

const inPending = (id: string, pending: readonly string[]) =>
  pending.some((namespace) => id === namespace || id.startsWith(`${namespace}.`));

/** The catalog's tree with its keys sorted at every level, as `npm run i18n` writes it. */
export function sortedTree(tree: CatalogTree): CatalogTree {
  return Object.fromEntries(
    Object.keys(tree)
      .sort()
      .map((key) => {
        const value = tree[key]!;
        return [key, typeof value === 'object' && !Array.isArray(value) ? sortedTree(value) : value];
      }),
  );
}

export const catalogText = (tree: CatalogTree) => `${JSON.stringify(sortedTree(tree), null, 2)}\n`;

function metaProblems(tag: string, tree: CatalogTree): string[] {
  const meta = tree.$meta as unknown;
  if (!meta || typeof meta !== 'object') return [`${tag}: no $meta {name, dir}`];
  const { name, dir, intl } = meta as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof name !== 'string' || name.trim() === '')
    problems.push(`${tag}: $meta.name must name the language in itself`);
  if (dir !== 'ltr' && dir !== 'rtl') problems.push(`${tag}: $meta.dir must be "ltr" or "rtl"`);
  if (intl !== undefined) {
    try {
      if (typeof intl !== 'string') throw new RangeError('not a string');
      Intl.getCanonicalLocales(intl);
    } catch {
      problems.push(`${tag}: $meta.intl is not a locale`);
    }
  }
  return problems;
}

/** Leaves that are neither a message nor a namespace. */
function shapeProblems(tag: string, tree: CatalogTree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) => {
    const id = prefix ? `${prefix}.${key}` : key;
    if (id === '$meta' || typeof value === 'string') return [];
    if (value && typeof value === 'object' && !Array.isArray(value)) return shapeProblems(tag, value, id);
    return [`${tag} ${id}: a message must be a string`];
  });
}

/** CLDR's plural categories, in the order they are said. */
const CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];

/** Each plural of a message and the categories it lacks for `locale` (`other` always needed). */
function pluralProblems(locale: string, elements: MessageFormatElement[]): string[] {
  const problems: string[] = [];
  for (const element of elements) {
    if (element.type === TYPE.plural) {
      const rules = new Intl.PluralRules(locale, { type: element.pluralType ?? 'cardinal' });
      const needed = new Set<string>([...rules.resolvedOptions().pluralCategories, 'other']);
      const given = Object.keys(element.options).filter((key) => !key.startsWith('='));
      const lacking = CATEGORIES.filter((category) => needed.has(category) && !given.includes(category));
      const unused = given.filter((category) => !needed.has(category));
      if (lacking.length) problems.push(`plural {${element.value}} lacks ${lacking.join(', ')}`);
      if (unused.length)
        problems.push(`plural {${element.value}} has ${unused.join(', ')}, which ${locale} never uses`);
    }
    if (element.type === TYPE.plural || element.type === TYPE.select)
      for (const option of Object.values(element.options)) problems.push(...pluralProblems(locale, option.value));
    if (element.type === TYPE.tag) problems.push(...pluralProblems(locale, element.children));
  }
  return problems;
}

function parsed(tag: string, id: string, text: string, errors: string[]): MessageFormatElement[] | null {
  try {
    return parse(text);
  } catch (err) {
    errors.push(`${tag} ${id}: does not parse as ICU MessageFormat (${(err as Error).message})`);
    return null;
  }
}

/** Why two messages' placeholders differ (names, or kinds: FormatJS's own comparison), or null. */
function placeholdersDiffer(a: MessageFormatElement[], b: MessageFormatElement[]): string | null {
  try {
    const same = isStructurallySame(a, b);
    return same.success ? null : (same.error?.message ?? 'they differ');
  } catch (err) {
    // One message uses a placeholder as two kinds at once.
    return (err as Error).message;
  }
}

function codeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : codeFiles(path);
    // JSON counts: the template and canvas files name their words by message id.
    return /\.(tsx?|json)$/.test(name) && !name.endsWith('message-types.ts') ? [path] : [];
  });
}

/** Checks the catalogs of `dir`. */
export function checkCatalogs(dir: string, options: CheckOptions = {}): CheckReport {
  const pending = options.pending ?? PENDING;
  const errors: string[] = [];
  const tags = catalogTags(dir);
  const pendingMissing = new Map<string, number>();
  if (!tags.includes(SOURCE_LANGUAGE))
    return { languages: tags, messages: 0, errors: [`no ${SOURCE_LANGUAGE}.json`], pendingMissing };

  const trees = new Map(tags.map((tag) => [tag, readCatalogTree(dir, tag)]));
  const source = flattenMessages(trees.get(SOURCE_LANGUAGE)!);
  const sourceAsts = new Map<string, MessageFormatElement[] | null>();
  for (const [id, text] of source) sourceAsts.set(id, parsed(SOURCE_LANGUAGE, id, text, errors));

  for (const tag of tags) {
    const tree = trees.get(tag)!;
    let canonical = '';
    try {
      canonical = Intl.getCanonicalLocales(tag)[0] ?? '';
    } catch {
      // Reported below.
    }
    if (canonical !== tag || tag === PSEUDO_LANGUAGE)
      errors.push(
        `${tag}.json: the file's name must be a language tag in its canonical form${tag === PSEUDO_LANGUAGE ? ' (en-XA is made from en.json, never a file)' : ''}`,
      );
    errors.push(...metaProblems(tag, tree), ...shapeProblems(tag, tree));
    if (readFileSync(join(dir, `${tag}.json`), 'utf8') !== catalogText(tree))
      errors.push(`${tag}.json: not in its sorted form (npm run i18n writes it)`);
    const messages = flattenMessages(tree);
    const locale = (tree.$meta as { intl?: string } | undefined)?.intl ?? tag;
    for (const [id, sourceAst] of sourceAsts) {
      const text = messages.get(id);
      if (text === undefined) {
        if (inPending(id, pending)) pendingMissing.set(tag, (pendingMissing.get(tag) ?? 0) + 1);
        else errors.push(`${tag} ${id}: missing`);
        continue;
      }
      const ast = tag === SOURCE_LANGUAGE ? sourceAst : parsed(tag, id, text, errors);
      if (!ast) continue;
      if (sourceAst && tag !== SOURCE_LANGUAGE) {
        const differs = placeholdersDiffer(sourceAst, ast);
        if (differs) errors.push(`${tag} ${id}: placeholders differ from ${SOURCE_LANGUAGE}'s (${differs})`);
      }
      for (const problem of pluralProblems(locale, ast)) errors.push(`${tag} ${id}: ${problem}`);
    }
    for (const id of messages.keys()) if (!source.has(id)) errors.push(`${tag} ${id}: not in ${SOURCE_LANGUAGE}.json`);
  }

  if (options.codeDirs?.length) {
    const code = options.codeDirs
      .flatMap(codeFiles)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    for (const id of source.keys())
      if (!code.includes(`'${id}'`) && !code.includes(`"${id}"`))
        errors.push(
          `${SOURCE_LANGUAGE} ${id}: used nowhere in ${options.codeDirs.join(', ')} (ids are written whole, never built)`,
        );
  }
  return { languages: tags, messages: source.size, errors, pendingMissing };
}
