import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The message catalogs (docs/i18n.md): `locales/<tag>.json`, one file per language, nested JSON
 * whose dotted paths are the message ids, plus `$meta`. The languages are the files found: adding
 * one is adding its file. Read by the server, the pages' build and `scripts/i18n.ts` alike.
 */

/** The language every other is checked against, and the one a missing message falls back to. */
export const SOURCE_LANGUAGE = 'en';
/**
 * The pseudo-locale: made from `en` (`pseudo.ts`), never a file, never offered in a list, served
 * only to whoever asks for it by name (`Accept-Language: en-XA`, or the pages' stored choice).
 */
export const PSEUDO_LANGUAGE = 'en-XA';

/** What a catalog says of its language (`$meta`). */
export interface LanguageMeta {
  /** The language's own name, as the switcher offers it (`Deutsch`). */
  name: string;
  dir: 'ltr' | 'rtl';
  /** The locale handed to `Intl` when it differs from the tag (`ar-u-nu-latn`: Latin digits). */
  intl?: string;
}

export interface Catalog {
  tag: string;
  meta: LanguageMeta;
  /** ICU MessageFormat sources by id. */
  messages: Map<string, string>;
}

/** A catalog file's tree: `$meta`, then namespaces down to messages. */
export type CatalogTree = { [key: string]: string | CatalogTree };

/** The dotted ids of a catalog's tree (`$meta` left out); what is not a string or an object is left to the check. */
export function flattenMessages(tree: CatalogTree, prefix = '', into = new Map<string, string>()): Map<string, string> {
  for (const [key, value] of Object.entries(tree)) {
    if (prefix === '' && key === '$meta') continue;
    const id = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') into.set(id, value);
    else if (value && typeof value === 'object' && !Array.isArray(value)) flattenMessages(value, id, into);
  }
  return into;
}

/** The languages a folder of catalogs holds, the source language first. */
export function catalogTags(dir: string): string[] {
  const tags = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();
  return [...tags.filter((tag) => tag === SOURCE_LANGUAGE), ...tags.filter((tag) => tag !== SOURCE_LANGUAGE)];
}

export function readCatalogTree(dir: string, tag: string): CatalogTree {
  return JSON.parse(readFileSync(join(dir, `${tag}.json`), 'utf8')) as CatalogTree;
}

function metaOf(tree: CatalogTree, tag: string): LanguageMeta {
  const meta = (typeof tree.$meta === 'object' ? tree.$meta : {}) as Record<string, unknown>;
  return {
    name: typeof meta.name === 'string' ? meta.name : tag,
    dir: meta.dir === 'rtl' ? 'rtl' : 'ltr',
    ...(typeof meta.intl === 'string' ? { intl: meta.intl } : {}),
  };
}

/** Every catalog of a folder, the source language first. */
export function readCatalogs(dir: string): Catalog[] {
  return catalogTags(dir).map((tag) => {
    const tree = readCatalogTree(dir, tag);
    return { tag, meta: metaOf(tree, tag), messages: flattenMessages(tree) };
  });
}
