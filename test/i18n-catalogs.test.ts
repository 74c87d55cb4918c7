import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogText, checkCatalogs, PENDING } from '../scripts/i18n-check';
import { readCatalogTree, type CatalogTree } from '../src/i18n/catalog';
import { createMessages, dir, t } from '../src/i18n/messages';
import { PSEUDO_CLOSE, PSEUDO_OPEN } from '../src/i18n/pseudo';

/*
 * The message catalogs (docs/i18n.md): the service's own pass every check of `npm run i18n:check`,
 * and the check catches what it is for on copies changed in a temporary folder: a missing
 * message, placeholders that differ from English, an Arabic plural without its six categories.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LOCALES = join(ROOT, 'locales');
const copies: string[] = [];
afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** A copy of the service's catalogs, changed by `change` (given each language's tree), written sorted. */
function changedCopy(change: (trees: Record<string, CatalogTree>) => void): string {
  const copy = mkdtempSync(join(tmpdir(), 'catalogs-'));
  copies.push(copy);
  cpSync(LOCALES, copy, { recursive: true });
  const tags = ['en', 'fr', 'de', 'es', 'ar'];
  const trees = Object.fromEntries(tags.map((tag) => [tag, readCatalogTree(copy, tag)]));
  change(trees);
  for (const tag of tags) writeFileSync(join(copy, `${tag}.json`), catalogText(trees[tag]!));
  return copy;
}

/** The namespace object at a dotted path of a tree. */
const at = (tree: CatalogTree, path: string) => path.split('.').reduce((node, key) => node[key] as CatalogTree, tree);

function runCheck(args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/i18n.ts', '--check', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

describe('the message catalogs', () => {
  it('hold five languages that pass every check, each English id used in the code', () => {
    const report = checkCatalogs(LOCALES, { codeDirs: [join(ROOT, 'src'), join(ROOT, 'web')] });
    expect(report.languages).toEqual(['en', 'ar', 'de', 'es', 'fr']);
    expect(report.errors).toEqual([]);
    expect(report.messages).toBeGreaterThan(30);
  });

  it('npm run i18n:check passes on them, the typed ids current, and lists what is pending', () => {
    const { status, out } = runCheck([]);
    expect(status).toBe(0);
    expect(out).toContain('i18n check passed');
    expect(out).toContain(
      `PENDING, allowed to be missing while being moved (English meanwhile): ${PENDING.join(', ')}`,
    );
  });

  it('fails a language that lacks a message, unless its namespace is pending', () => {
    const copy = changedCopy((trees) => {
      delete at(trees.de!, 'participant.join').submit;
    });
    expect(checkCatalogs(copy).errors).toEqual(['de participant.join.submit: missing']);
    const pending = checkCatalogs(copy, { pending: ['participant.join'] });
    expect(pending.errors).toEqual([]);
    expect(pending.pendingMissing.get('de')).toBe(1);
  });

  it('fails placeholders that differ from English: another name, another type', () => {
    const copy = changedCopy((trees) => {
      at(trees.fr!, 'participant.join').title_named = 'Rejoindre « {titre} »';
      at(trees.es!, 'participant.join').code_hint = 'Los {digits} dígitos de la pantalla.';
    });
    const { errors } = checkCatalogs(copy);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^es participant\.join\.code_hint: placeholders differ from en's \(.*digits/);
    expect(errors[1]).toMatch(/^fr participant\.join\.title_named: placeholders differ from en's/);
  });

  it("fails an Arabic plural without its language's six categories", () => {
    const copy = changedCopy((trees) => {
      at(trees.ar!, 'participant.join').code_hint = '{digits, plural, one {رقم واحد} other {# رقم}}';
    });
    expect(checkCatalogs(copy).errors).toEqual([
      'ar participant.join.code_hint: plural {digits} lacks zero, two, few, many',
    ]);
  });

  it('fails an extra id, a bad $meta, a message that does not parse, and a file not in its sorted form', () => {
    const copy = changedCopy((trees) => {
      at(trees.de!, 'participant').extra = 'Zusätzlich';
      (trees.es!.$meta as CatalogTree).dir = 'sideways';
      at(trees.fr!, 'participant.join').submit = 'Rejoindre {';
    });
    writeFileSync(join(copy, 'ar.json'), JSON.stringify(readCatalogTree(copy, 'ar')));
    const { errors } = checkCatalogs(copy);
    expect(errors).toContain('de participant.extra: not in en.json');
    expect(errors).toContain('es: $meta.dir must be "ltr" or "rtl"');
    expect(errors.some((error) => error.startsWith('fr participant.join.submit: does not parse'))).toBe(true);
    expect(errors).toContain('ar.json: not in its sorted form (npm run i18n writes it)');
  });

  it('npm run i18n:check prints each problem and fails', () => {
    const copy = changedCopy((trees) => {
      delete at(trees.es!, 'participant.join').title;
    });
    const { status, out, err } = runCheck(['--dir', copy]);
    expect(status).toBe(1);
    expect(out).toContain('5 languages (en, ar, de, es, fr)');
    expect(err).toContain('i18n check FAILED, 1 problem:');
    expect(err).toContain('  - es participant.join.title: missing');
  });
});

describe('messages on the server', () => {
  it('formats plurals with each language its own categories, Arabic with Latin digits', () => {
    expect(t('en', 'participant.join.code_hint', { digits: 9 })).toBe("The 9 digits shown on the workshop's screen.");
    expect(t('en', 'participant.join.code_hint', { digits: 1 })).toBe("The 1 digit shown on the workshop's screen.");
    expect(t('ar', 'participant.join.code_hint', { digits: 9 })).toBe('9 أرقام تظهر على شاشة ورشة العمل.');
    expect(t('ar', 'participant.join.code_hint', { digits: 11 })).toBe('11 رقمًا يظهر على شاشة ورشة العمل.');
    expect(t('ar', 'participant.join.code_hint', { digits: 2 })).toBe('رقمان يظهران على شاشة ورشة العمل.');
    expect(t('de', 'participant.forms.rate_limited', { seconds: 1 })).toContain('Warten Sie 1 Sekunde und');
  });

  it('falls back to English for a language without a catalog, and for a message a catalog lacks', () => {
    expect(t('ja', 'participant.join.title')).toBe('Join the workshop');
    const copy = changedCopy((trees) => {
      delete at(trees.de!, 'participant.join').title;
    });
    const messages = createMessages(copy);
    expect(messages.format('de', 'participant.join.title')).toBe('Join the workshop');
    expect(messages.format('de', 'participant.join.submit')).toBe('Teilnehmen');
  });

  it('knows the direction of each language', () => {
    expect(dir('ar')).toBe('rtl');
    expect(['en', 'fr', 'de', 'es', 'en-XA'].map(dir)).toEqual(['ltr', 'ltr', 'ltr', 'ltr', 'ltr']);
  });

  it('makes the pseudo-locale en-XA from English: marked, accented, longer, placeholders kept', () => {
    const english = t('en', 'participant.join.title_named', { title: 'Retro' });
    const pseudo = t('en-XA', 'participant.join.title_named', { title: 'Retro' });
    expect(pseudo.startsWith(PSEUDO_OPEN) && pseudo.endsWith(PSEUDO_CLOSE)).toBe(true);
    expect(pseudo).toContain('Ĵöîñ “Retro”');
    expect(pseudo.length).toBeGreaterThanOrEqual(english.length * 1.4);
    expect(t('en-XA', 'participant.join.code_hint', { digits: 9 })).toMatch(/^⟦Ţĥé 9 ðîĝîţš šĥöŵñ .*·+⟧$/);
  });
});
