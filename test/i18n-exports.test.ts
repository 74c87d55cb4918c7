import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkshopOutput } from '../src/domain/workshops';
import { useServer } from './helpers/cast';
import { createUser, type TestUser } from './helpers/factories';
import { exported, lineAfter, records, rowWith, workbookOf, zipText } from './helpers/exports';
import { readPdf, type ReadPdf } from './helpers/pdf';
import { workshopJoinedBy, writtenBy } from './helpers/requests';

/*
 * Exports speak the workshop's language (docs/i18n.md#which-language): sheet names, headings,
 * labels and "Deleted user" come from the catalogs, and an Arabic workshop's files run right to
 * left. People's words (titles, names, content) stay as they were written.
 */

const t = useServer();
const PASSWORD = 'correct horse battery';

interface Scene {
  facilitator: TestUser;
  workshop: WorkshopOutput;
}

/**
 * A workshop in `language` with a cluster, an idea, a comment, an item and a vote by someone who
 * then deletes their account, and a vote by the facilitator.
 */
async function sceneIn(language: string): Promise<Scene> {
  const facilitator = await createUser(t, 'Fay Host');
  const leaver = await createUser(t, 'Lou Leaving');
  const workshop = await workshopJoinedBy(t, facilitator, [leaver], { title: 'Retro', language });
  await writtenBy(t, facilitator, leaver, workshop.id);
  const deleted = await t.request('DELETE', '/v1/user/me', { token: leaver.token, body: { password: PASSWORD } });
  expect(deleted.status).toBe(204);
  return { facilitator, workshop };
}

const file = async (scene: Scene, type: 'xlsx' | 'pdf' | 'docx') =>
  (await exported(t, scene.facilitator, scene.workshop.id, type)).data;

/** The pdf.js text item that is exactly `text`, with the page it is on. */
function itemOf(pdf: ReadPdf, text: string) {
  for (const page of pdf.pages) {
    const item = page.items.find((candidate) => candidate.str.trim() === text);
    if (item) return item;
  }
  throw new Error(`no text item is "${text}"`);
}

/** A4's width, and the report's side margins, in points. */
const PAGE_WIDTH = 595.28;
const MARGIN = 56;

describe('a workshop in French', () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await sceneIn('fr');
  });

  it('names its sheets and columns in French, and the deleted author "Utilisateur supprimé"', async () => {
    const workbook = await workbookOf(await file(scene, 'xlsx'));
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
      'Synthèse',
      'Cartes',
      'Votes',
      'Évaluations',
      'Éléments',
      'Commentaires',
      'Étapes',
    ]);
    const card = rowWith(records(workbook, 'Cartes'), 'Titre', 'An idea that stays');
    expect(card).toMatchObject({ Type: 'idée', Auteur: 'Utilisateur supprimé' });
    expect(card['Créé le (UTC)']).toBeInstanceOf(Date);
    expect(rowWith(records(workbook, 'Commentaires'), 'Contenu', 'A comment that stays')['Utilisateur']).toBe(
      'Utilisateur supprimé',
    );
    const voters = records(workbook, 'Votes').map((vote) => vote['Utilisateur']);
    expect(voters.sort()).toEqual(['Fay Host', 'Utilisateur supprimé']);
    expect(workbook.getWorksheet('Cartes')!.views[0]?.rightToLeft).toBeFalsy();
  });

  it('writes the PDF report in French, with French dates and page numbers', async () => {
    const pdf = await readPdf(await file(scene, 'pdf'));
    const text = pdf.pages.map((page) => page.lines.join('\n')).join('\n');
    expect(pdf.outline).toEqual(expect.arrayContaining(['Sommaire', 'Programme', 'Groupes et idées', 'Résultats']));
    expect(text).toMatch(/^Compte rendu d’atelier du \d{1,2} \p{L}+ \d{4}$/mu);
    expect(text).toContain(`Page 1 sur ${pdf.pageCount}`);
    expect(text).not.toContain('Workshop report');
    expect(lineAfter(pdf, 'An idea that stays')).toBe(
      'Score 2 · 2 votes (+2 / −0) · 1 commentaire · 1 élément · par Utilisateur supprimé',
    );
    expect(itemOf(pdf, 'Programme').x).toBeCloseTo(MARGIN, 0);
  });

  it('writes the Word report in French', async () => {
    const docx = await zipText(await file(scene, 'docx'));
    for (const words of ['Programme', 'Groupes', 'Meilleures idées', 'Commentaires', 'Utilisateur supprimé'])
      expect(docx).toContain(words);
    expect(docx).toMatch(/Page\s+\S*\s*sur/);
    expect(docx).not.toContain('Top ideas');
  });
});

describe('a workshop in Arabic', () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await sceneIn('ar');
  });

  it('names its sheets in Arabic and sets every sheet right to left', async () => {
    const data = await file(scene, 'xlsx');
    const workbook = await workbookOf(data);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
      'الملخص',
      'البطاقات',
      'الأصوات',
      'التقييمات',
      'العناصر',
      'التعليقات',
      'الخطوات',
    ]);
    for (const sheet of workbook.worksheets) expect(sheet.views[0]?.rightToLeft, sheet.name).toBe(true);
    const card = rowWith(records(workbook, 'البطاقات'), 'العنوان', 'An idea that stays');
    expect(card['الكاتب']).toBe('مستخدم محذوف');
  });

  it('lays the Word report out right to left: every body paragraph bidi, tables from the right', async () => {
    const zip = await JSZip.loadAsync(await file(scene, 'docx'));
    const xml = await zip.file('word/document.xml')!.async('string');
    const paragraphs = xml.match(/<w:p>.*?<\/w:p>|<w:p [^>]*>.*?<\/w:p>/gs) ?? [];
    expect(paragraphs.length).toBeGreaterThan(20);
    const ltr = paragraphs.filter((paragraph) => !paragraph.includes('<w:bidi/>'));
    // Only Word's table of contents field, which Word writes itself on opening, is left as it is.
    expect(
      ltr.every((paragraph) => /TOC|w:fldChar|w:instrText/.test(paragraph)),
      ltr.join('\n'),
    ).toBe(true);
    expect(xml).toContain('<w:bidiVisual/>');
    const text = await zipText(Buffer.from(await zip.generateAsync({ type: 'uint8array' })));
    for (const words of ['جدول الأعمال', 'المجموعات', 'أفضل الأفكار', 'مستخدم محذوف']) expect(text).toContain(words);
  });

  it('sets the PDF report against the right margin, its headings in Arabic', async () => {
    const pdf = await readPdf(await file(scene, 'pdf'));
    expect(pdf.outline).toEqual(expect.arrayContaining(['المحتويات', 'جدول الأعمال', 'النتائج']));
    // pdf.js reads the lam-alef ligature back in another order: headings without one are compared.
    for (const heading of ['المحتويات', 'النتائج']) {
      const item = itemOf(pdf, heading);
      expect(item.x, heading).toBeGreaterThan(PAGE_WIDTH / 2);
    }
    // A Latin title in an Arabic report sits at the right margin too.
    const title = itemOf(pdf, 'Retro');
    expect(title.x).toBeGreaterThan(PAGE_WIDTH / 2);
    const text = pdf.pages.map((page) => page.text).join('\n');
    expect(text).toContain('مستخدم محذوف');
    expect(text).not.toContain('Deleted user');
  });
});
