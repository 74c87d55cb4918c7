import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogTags, flattenMessages, readCatalogTree, SOURCE_LANGUAGE } from '../src/i18n/catalog';
import { catalogText, checkCatalogs, PENDING } from './i18n-check';
import { messageTypesModule } from './i18n-types';

/*
 * `npm run i18n`: writes every catalog in its sorted form and generates the typed ids
 * (`src/i18n/message-types.ts`) from `locales/en.json`.
 * `npm run i18n:check`: changes nothing; fails (exit 1) on any problem of `i18n-check.ts` or
 * generated types that are not current. `--dir <folder>` checks another folder of catalogs (the
 * use and types checks are then skipped).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TYPES_FILE = join(ROOT, 'src', 'i18n', 'message-types.ts');
const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const dirAt = args.indexOf('--dir');
const dir = dirAt >= 0 ? resolve(args[dirAt + 1] ?? '.') : join(ROOT, 'locales');
const ownCatalogs = dirAt < 0;

const typesModule = () => messageTypesModule(flattenMessages(readCatalogTree(dir, SOURCE_LANGUAGE)));

if (!checkOnly) {
  for (const tag of catalogTags(dir)) writeFileSync(join(dir, `${tag}.json`), catalogText(readCatalogTree(dir, tag)));
  if (ownCatalogs) writeFileSync(TYPES_FILE, typesModule());
  console.log(`i18n: ${catalogTags(dir).join(', ')} sorted${ownCatalogs ? '; src/i18n/message-types.ts written' : ''}`);
}

const report = checkCatalogs(dir, ownCatalogs ? { codeDirs: [join(ROOT, 'src'), join(ROOT, 'web')] } : {});
if (ownCatalogs && readFileSync(TYPES_FILE, 'utf8') !== typesModule())
  report.errors.push('src/i18n/message-types.ts is not current: run npm run i18n');

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
