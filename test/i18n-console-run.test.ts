import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { t as said } from '../src/i18n/messages';
import { browserAvailable, htmlLanguage, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { expectNoTextCutOff, unmarkedTexts } from './helpers/pseudo';
import { sdkRunningWorkshop } from './helpers/sdk';

/*
 * A workshop's console in its facilitator's language (docs/i18n.md#which-language), in a real
 * chromium: the Run, People, Exports and Log tabs and the frame around them in French and in
 * Arabic (right to left), the Log's sentences in German, and nothing in plain English in the
 * pseudo-locale. The board inside the Run tab is left out: its words have not moved yet.
 */

describe.skipIf(!browserAvailable)('a workshop’s console in its facilitator’s language', () => {
  const server = useServer();
  const browser = useBrowser();

  /** Fay's running workshop (sdkRunningWorkshop) with Fay's account in `locale`, an idea, and an invitation. */
  async function scene(locale: string) {
    const running = await sdkRunningWorkshop(server);
    const { fay, inWorkshop, cluster } = running;
    await fay.api.put('/v1/user/me', { body: { locale } });
    await running.pat.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'New office plants', parent: cluster.id },
    });
    const invited = `ines-${process.pid}-${Date.now()}@example.test`;
    await fay.api.post('/v1/workshops/{workshop_id}/invitations', {
      ...inWorkshop,
      body: { emails: invited, content: 'Join us', role: 'facilitator' },
    });
    return { ...running, invited };
  }

  /** Opens one of the workshop's tabs, signed in with `token`. */
  const tab = (page: Page, token: string, id: string, name: string) =>
    openConsoleWithToken(page, server.url, token, `/workshops/${id}?tab=${name}`);

  it('shows the Run, People, Exports and Log tabs in French to a French facilitator, counts and all', async () => {
    const { fay, id } = await scene('fr');
    const { page, problems } = await browser.newPage(LAPTOP);
    const token = fay.api.token!;

    await tab(page, token, id, 'run');
    await shown(page, '.run-step h2', 'Étape');
    expect(await htmlLanguage(page)).toEqual({ lang: 'fr', dir: 'ltr' });
    await shown(page, '.run-step-number', 'Étape 1 sur 1\u00a0: ');
    await shown(page, '.run-timer h2', 'Minuteur');
    await shown(page, '.run-clock-state', 'Pas démarré');
    await page.getByRole('button', { name: 'Démarrer' }).waitFor();
    await shown(page, '.run-room h2', 'La salle');
    await shown(page, '.run-participation li:first-child', '1 participant dans l’atelier');
    await shown(page, '.run-participation li:nth-child(2)', '0 sur 1 a voté');
    await shown(page, '.run-presence-count', '1 personne connectée');
    await page.getByRole('button', { name: 'Copier le code d’accès' }).waitFor();
    await page.getByRole('button', { name: 'Ouvrir l’écran pour le projecteur' }).waitFor();
    await page.getByRole('navigation', { name: 'Atelier' }).getByRole('link', { name: 'Personnes' }).waitFor();

    await tab(page, token, id, 'people');
    await shown(page, '.people > .panel:first-child > .meta', '2 membres\u00a0: 1 animateur, 1 participant.');
    await shown(page, '.invitation-row .role', 'Co-animateur');
    await shown(page, '.invitation-row .state', 'En attente de réponse');

    await tab(page, token, id, 'exports');
    await page.getByRole('button', { name: 'Exporter en classeur Excel' }).click();
    await shown(page, '.export-row .export-name', 'Classeur Excel');
    await shown(page, '.export-row .meta', /^demandé le /);

    await tab(page, token, id, 'log');
    await shown(page, '.log h2', 'Ce qui s’est passé');
    await shown(page, '.log-entry:last-child .log-words', 'Fay a créé l’atelier «\u00a0Quarterly review\u00a0».');
    const words = await page.locator('.log-words').allTextContents();
    expect(words).toContain('Pat a ajouté l’idée «\u00a0New office plants\u00a0».');
    expect(words).toContain('Fay a demandé un fichier Excel.');
    expect(problems.errors).toEqual([]);
  });

  it('lays the workshop’s tabs out right to left in Arabic, with no serious accessibility problem', async () => {
    const { fay, id } = await scene('ar');
    const { page, problems } = await browser.newPage(PHONE);
    const token = fay.api.token!;

    await tab(page, token, id, 'run');
    await shown(page, '.run-step h2', said('ar', 'console.run.step.title'));
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    await shown(page, '.run-participation li:first-child', 'مشارك واحد في ورشة العمل');
    await shown(page, '.run-presence-count', 'شخص واحد متصل');
    // The next step's arrow points the way Arabic reads.
    expect(await page.locator('.run-step-nav .primary [aria-hidden="true"]').textContent()).toBe('←');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.run')!).direction)).toBe('rtl');
    await expectAccessible(page, 'the Run tab, in Arabic');
    await expectNoTextCutOff(page, 'the Run tab, in Arabic');

    await tab(page, token, id, 'people');
    await shown(page, '.invitation-row .role', 'ميسّر مشارك');
    await expectAccessible(page, 'the People tab, in Arabic');
    await expectNoTextCutOff(page, 'the People tab, in Arabic');

    await tab(page, token, id, 'exports');
    await page.getByRole('button', { name: 'التصدير بصيغة CSV للبطاقات' }).click();
    await shown(page, '.export-row .export-name', 'ملف CSV للبطاقات');
    await expectAccessible(page, 'the Exports tab, in Arabic');
    await expectNoTextCutOff(page, 'the Exports tab, in Arabic');

    await tab(page, token, id, 'log');
    await shown(page, '.log-entry:last-child .log-words', 'أنشأ Fay ورشة العمل «Quarterly review».');
    await expectAccessible(page, 'the Log tab, in Arabic');
    await expectNoTextCutOff(page, 'the Log tab, in Arabic');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(problems.errors).toEqual([]);
  });

  it('says each kind of change of the Log in whole German sentences, not English pieces', async () => {
    const { fay, id, inWorkshop, invited } = await scene('de');
    await fay.api.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 300 } });
    await fay.api.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { action: 'pause' } });
    await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { force_sync: true } });
    await fay.api.post('/v1/workshops/{workshop_id}/exports', { ...inWorkshop, body: { type: 'xlsx' } });
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, server.url, fay.api.token!, `/workshops/${id}?tab=log`);
    await shown(page, '.log h2', 'Was geschah');
    await page.locator('.log-entry').first().waitFor();
    const words = await page.locator('.log-words').allTextContents();
    for (const sentence of [
      'Fay hat den Workshop „Quarterly review“ erstellt.',
      'Pat ist dem Workshop beigetreten.',
      'Fay ist zum Schritt „Collect“ gewechselt.',
      'Fay hat die Gruppe „Highlights“ hinzugefügt.',
      'Pat hat die Idee „New office plants“ hinzugefügt.',
      `Fay hat ${invited} zur Co-Moderation eingeladen.`,
      'Fay hat den Timer für 5 Min. gestartet.',
      'Fay hat den Timer angehalten.',
      'Fay hat den Workshop „Quarterly review“ geändert: Einstellung, dass Teilnehmende der Ansicht der Moderation folgen.',
      'Fay hat eine Excel-Datei angefordert.',
    ])
      expect(words).toContain(sentence);

    // The filter's kinds are German too, and keep one kind of change.
    await page.getByLabel('Anzeigen').selectOption({ label: 'Ablauf und Timer' });
    await expect
      .poll(() => page.locator('.log-words').allTextContents())
      .toEqual([
        'Fay hat den Timer angehalten.',
        'Fay hat den Timer für 5 Min. gestartet.',
        'Fay ist zum Schritt „Collect“ gewechselt.',
        'Fay hat den Schritt „Collect“ hinzugefügt.',
      ]);
    expect(problems.errors).toEqual([]);
  });

  it('leaves nothing in plain English on the Run, People, Exports and Log tabs in the pseudo-locale', async () => {
    const { fay, pat, id, inWorkshop, invited } = await scene('en');
    const { join_url } = await fay.api.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
    await fay.api.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 300 } });
    const { page, problems } = await browser.newPage({ ...LAPTOP, extraHTTPHeaders: { 'Accept-Language': 'en-XA' } });
    const peoples = ['Fay', 'Pat', 'Quarterly review', 'Collect', 'Highlights', 'New office plants', join_url, invited];
    const moments = () => page.locator('time').allTextContents();

    await openConsoleWithToken(page, server.url, fay.api.token!, `/workshops/${id}?tab=run`);
    await page.locator('.run-qr svg').waitFor();
    expect(await htmlLanguage(page)).toEqual({ lang: 'en-XA', dir: 'ltr' });
    for (const details of await page.locator('.run details summary').all()) await details.click();
    expect(await unmarkedTexts(page, peoples, '.run-board')).toEqual([]);
    await expectNoTextCutOff(page, 'the view (1)');

    await page.locator('.tabs a[href$="tab=people"]').click();
    await page.locator('.invitation-row').waitFor();
    await page.locator('.member-row').nth(1).waitFor();
    expect(await unmarkedTexts(page, [...peoples, pat.email])).toEqual([]);
    await expectNoTextCutOff(page, 'the view (2)');

    await page.locator('.tabs a[href$="tab=exports"]').click();
    await page.locator('.export-formats button').first().waitFor();
    await page.locator('.export-formats button').nth(3).click();
    await page.locator('.export-row').waitFor();
    expect(await unmarkedTexts(page, [...peoples, ...(await moments())])).toEqual([]);
    await expectNoTextCutOff(page, 'the view (3)');

    await page.locator('.tabs a[href$="tab=log"]').click();
    await page.locator('.log-entry').nth(5).waitFor();
    expect(await unmarkedTexts(page, [...peoples, ...(await moments())])).toEqual([]);
    await expectNoTextCutOff(page, 'the view (4)');
    expect(problems.errors).toEqual([]);
  });
});
