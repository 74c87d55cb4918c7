import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogTags, flattenMessages, readCatalogTree, SOURCE_LANGUAGE } from '../src/i18n/catalog';
import { catalogText, checkCatalogs, PENDING } from './i18n-check';
import { messageTypesModules } from './i18n-types';

/*
 * `npm run i18n`: writes every catalog in its sorted form and generates the typed ids
 * (`src/i18n/message-types.ts` and its parts in `src/i18n/message-types/`) from `locales/en.json`.
 * `npm run i18n:check`: changes nothing; fails (exit 1) on any problem of `i18n-check.ts` or
 * generated types that are not current. `--dir <folder>` checks another folder of catalogs (the
 * use and types checks are then skipped).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const I18N_DIR = join(ROOT, 'src', 'i18n');
const PARTS_DIR = join(I18N_DIR, 'message-types');
const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const dirAt = args.indexOf('--dir');
const dir = dirAt >= 0 ? resolve(args[dirAt + 1] ?? '.') : join(ROOT, 'locales');
const ownCatalogs = dirAt < 0;

const typesModules = () => messageTypesModules(flattenMessages(readCatalogTree(dir, SOURCE_LANGUAGE)));
/** The generated files as they are now, by path below `src/i18n/`. */
const writtenTypes = () =>
  new Map<string, string>([
    ...(existsSync(join(I18N_DIR, 'message-types.ts'))
      ? [['message-types.ts', readFileSync(join(I18N_DIR, 'message-types.ts'), 'utf8')] as const]
      : []),
    ...(existsSync(PARTS_DIR) ? readdirSync(PARTS_DIR) : []).map(
      (name) => [`message-types/${name}`, readFileSync(join(PARTS_DIR, name), 'utf8')] as const,
    ),
  ]);

if (!checkOnly) {
  for (const tag of catalogTags(dir)) writeFileSync(join(dir, `${tag}.json`), catalogText(readCatalogTree(dir, tag)));
  if (ownCatalogs) {
    // Written afresh: a part no longer made (a namespace gone) does not linger.
    rmSync(PARTS_DIR, { recursive: true, force: true });
    mkdirSync(PARTS_DIR);
    for (const [path, text] of typesModules()) writeFileSync(join(I18N_DIR, path), text);
  }
  console.log(`i18n: ${catalogTags(dir).join(', ')} sorted${ownCatalogs ? '; src/i18n/message-types.ts written' : ''}`);
}

const report = checkCatalogs(dir, ownCatalogs ? { codeDirs: [join(ROOT, 'src'), join(ROOT, 'web')] } : {});
if (ownCatalogs) {
  const expected = typesModules();
  const written = writtenTypes();
  const stale = [...new Set([...expected.keys(), ...written.keys()])].filter(
    (path) => expected.get(path) !== written.get(path),
  );
  if (stale.length) report.errors.push(`src/i18n/${stale.join(', ')} not current: run npm run i18n`);
}

console.log(
  `i18n: ${report.languages.length} languages (${report.languages.join(', ')}), ${report.messages} messages in ${SOURCE_LANGUAGE}`,
);
const missing = [...report.pendingMissing].map(([tag, count]) => `${tag} ${count}`);
console.log(
  `i18n: PENDING, allowed to be missing while being moved (English meanwhile): ${PENDING.join(', ') || 'none'}` +
    (missing.length ? `; missing now: ${missing.join(', ')}` : '; none missing now'),
);
if (report.errors.length) {
  console.error(`\ni18n check FAILED, ${report.errors.length} problem${report.errors.length === 1 ? '' : 's'}:`);
  for (const error of report.errors) console.error(`  - ${error}`);
  process.exit(1);
}
console.log('i18n check passed');
