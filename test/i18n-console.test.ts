import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { t as said } from '../src/i18n/messages';
import { browserAvailable, htmlLanguage, messagesFetched, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken } from './helpers/console';
import { dayIn } from './helpers/i18n';
import { expectNoTextCutOff, unmarkedTexts } from './helpers/pseudo';
import { SDK_PASSWORD, sdkUser } from './helpers/sdk';

/*
 * The console in its user's language (docs/i18n.md#which-language), in a real chromium: signed
 * out in the browser's language, signed in in the account's `locale` (and its `time_zone` for
 * dates), following a change made on the Account page without a reload, Arabic right to left, and
 * the pseudo-locale marking every word the moved views say. The words expected are the catalogs',
 * formatted on the server.
 */

/** Every first-level heading the page shows from its first paint on, to tell a flash of another language. */
async function headingsSeen(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { headingsSeen: string[] }).headingsSeen = seen;
    new MutationObserver(() => {
      for (const heading of Array.from(document.querySelectorAll('h1'))) {
        if (heading.textContent && seen.at(-1) !== heading.textContent) seen.push(heading.textContent);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { headingsSeen: string[] }).headingsSeen);
}

describe.skipIf(!browserAvailable)('the console in its user’s language', () => {
  const browser = useBrowser();
  const server = useServer();

  it('shows the sign-in page in French to a French browser, from the first word, and fetches no other language', async () => {
    const html = await fetch(`${server.url}/`, { headers: { 'Accept-Language': 'fr-CA, en;q=0.5' } });
    expect(html.headers.get('vary')).toContain('Accept-Language');
    const frame = await html.text();
    expect(frame).toContain('<html lang="fr" dir="ltr">');
    expect(frame).toContain('<title>Ateliers</title>');
    expect(frame).toContain(`role="status">${said('fr', 'console.loading')}</p>`);
    expect(frame).toMatch(/<link rel="modulepreload" href="\/console\/assets\/messages-fr-[A-Z0-9]+\.js" \/>/);

    const { page, problems } = await browser.newPage({ ...LAPTOP, locale: 'fr-FR' });
    const fetched = messagesFetched(page, 'console');
    await page.goto(`${server.url}/`);
    await shown(page, 'h1', 'Ateliers');
    expect(await htmlLanguage(page)).toEqual({ lang: 'fr', dir: 'ltr' });
    const form = page.getByRole('form', { name: 'Se connecter' });
    await form.getByLabel('Adresse e-mail').waitFor();
    await form.getByLabel('Mot de passe').waitFor();
    await form.getByRole('button', { name: 'Se connecter' }).waitFor();
    expect(await page.textContent('.join-instead')).toBe(
      'Vous participez à un atelier\u00a0? Rejoignez-le avec son code',
    );
    await page.getByRole('button', { name: 'Créer un compte' }).click();
    await page.getByRole('form', { name: 'Créer un compte' }).getByText('Au moins 8 caractères.').waitFor();
    await page.getByRole('button', { name: 'Se connecter' }).first().click();
    await page.getByRole('button', { name: said('fr', 'console.sign_in.forgot') }).click();
    await page.getByRole('button', { name: 'M’envoyer un lien' }).waitFor();
    expect(await page.title()).toBe('Ateliers');
    expect(fetched).toEqual(['fr']);
    expect(problems.errors).toEqual([]);
  });

  it('shows home in German, dated in the account’s time zone, to an account in German signing in on an English browser, without a flash of English', async () => {
    const ute = await sdkUser(server, 'Ute');
    await ute.api.put('/v1/user/me', { body: { locale: 'de', time_zone: 'Pacific/Kiritimati' } });
    const workshop = await ute.api.post('/v1/workshops', { body: { title: 'Rückblick' } });

    const { page, problems } = await browser.newPage({ ...LAPTOP, locale: 'en-US', timezoneId: 'America/Los_Angeles' });
    const fetched = messagesFetched(page, 'console');
    const headings = await headingsSeen(page);
    await page.goto(`${server.url}/`);
    await page.getByLabel('E-mail address').fill(ute.email);
    await page.getByLabel('Password').fill(SDK_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).last().click();
    await shown(page, 'h1', 'Ihre Workshops');
    expect(await htmlLanguage(page)).toEqual({ lang: 'de', dir: 'ltr' });
    expect(await page.title()).toBe('Workshops');
    await shown(page, '.bar button', 'Abmelden');
    await shown(
      page,
      `[data-workshop="${workshop.id}"] .meta`,
      `Ute · laufend · erstellt am ${dayIn('de', 'Pacific/Kiritimati', workshop.created_at)}`,
    );
    expect(await page.getByRole('button', { name: 'Archivieren Rückblick' }).isVisible()).toBe(true);
    // Signed out it was English; once signed in, German only: never the home page in English first.
    expect(await headings()).toEqual(['Workshops', 'Ihre Workshops']);
    expect(fetched).toEqual(['en', 'de']);
    expect(problems.errors).toEqual([]);
  });

  it('changes the console to French at once when the language is changed on the Account page, and keeps it', async () => {
    const fay = await sdkUser(server, 'Fay');
    const { page, problems } = await browser.newPage(LAPTOP);
    const fetched = messagesFetched(page, 'console');
    await openConsoleWithToken(page, server.url, fay.api.token!, '/account');
    const language = page.getByLabel('Language of the console and of your mails');
    expect(await language.inputValue()).toBe('en');
    await language.selectOption('fr');

    await shown(page, '.bar .home-link', 'Ateliers');
    expect(await htmlLanguage(page)).toEqual({ lang: 'fr', dir: 'ltr' });
    await page.getByLabel('Langue de la console et de vos e-mails').waitFor();
    await page.getByRole('status').filter({ hasText: 'Enregistré.' }).waitFor();
    expect((await fay.api.get('/v1/user/me')).locale).toBe('fr');

    // The rest of the console follows, without a reload.
    await page.locator('.crumbs').getByRole('link', { name: 'Ateliers', exact: true }).click();
    await shown(page, 'h1', 'Vos ateliers');
    expect(await page.title()).toBe('Ateliers');
    // Back to German: the console moves again.
    await page.goto(`${server.url}/account`);
    await page.getByLabel('Langue de la console et de vos e-mails').selectOption('de');
    await shown(page, '.bar .home-link', 'Workshops');
    await page.getByLabel('Sprache der Konsole und Ihrer E-Mails').waitFor();
    expect(new Set(fetched)).toEqual(new Set(['en', 'fr', 'de']));
    expect(problems.errors).toEqual([]);
  });

  it('lays out Arabic right to left, signed out and on home, with no serious accessibility problem', async () => {
    const { page: signedOut } = await browser.newPage({ ...LAPTOP, locale: 'ar' });
    await signedOut.goto(`${server.url}/`);
    await shown(signedOut, 'h1', said('ar', 'console.title'));
    expect(await htmlLanguage(signedOut)).toEqual({ lang: 'ar', dir: 'rtl' });
    await expectAccessible(signedOut, 'signing in, in Arabic');

    const amal = await sdkUser(server, 'Amal');
    await amal.api.put('/v1/user/me', { body: { name: 'أمل', locale: 'ar', time_zone: 'Asia/Riyadh' } });
    const workshop = await amal.api.post('/v1/workshops', { body: { title: 'ورشة الربيع' } });
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, server.url, amal.api.token!, '/');
    await shown(page, 'h1', 'ورش العمل الخاصة بك');
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    // Dates in Latin digits, as the catalog's `intl` says, in the account's time zone.
    const day = dayIn('ar-u-nu-latn', 'Asia/Riyadh', workshop.created_at);
    expect(day).toMatch(/\d/);
    await shown(
      page,
      `[data-workshop="${workshop.id}"] .meta`,
      said('ar', 'console.home.row_meta', { owner: 'أمل', state: 'running', date: day }),
    );
    const layout = await page.evaluate(() => {
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
      return {
        direction: getComputedStyle(document.querySelector('main')!).direction,
        // The bar's way home starts the line: on the right.
        homeAtRight: box('.bar .home-link').left > box('.bar .account').right,
      };
    });
    expect(layout).toEqual({ direction: 'rtl', homeAtRight: true });
    await expectAccessible(page, 'home, in Arabic');
    await expectNoTextCutOff(page, 'home in Arabic');
    expect(problems.errors).toEqual([]);
  });

  it('leaves nothing in plain English in the pseudo-locale on the signed-out views, home, the create form and the session-ended dialog', async () => {
    const pseudo = { ...LAPTOP, extraHTTPHeaders: { 'Accept-Language': 'en-XA' } };
    const { page, problems } = await browser.newPage(pseudo);
    await page.goto(`${server.url}/`);
    await page.locator('.signed-out form').waitFor();
    expect(await htmlLanguage(page)).toEqual({ lang: 'en-XA', dir: 'ltr' });
    expect(await unmarkedTexts(page, [])).toEqual([]);
    await page.locator('.choices button').nth(1).click();
    await page.locator('form input[autocomplete="new-password"]').waitFor();
    expect(await unmarkedTexts(page, [])).toEqual([]);
    await page.locator('.choices button').first().click();
    await page.locator('form button.link').click();
    await page.locator('form input[type="email"]:focus').waitFor();
    expect(await unmarkedTexts(page, [])).toEqual([]);
    for (const path of ['/reset', '/confirm', '/invitations/no-such-invitation', '/workshops/abc']) {
      await page.goto(`${server.url}${path}`);
      await page.locator('main h1').waitFor();
      expect(await unmarkedTexts(page, []), path).toEqual([]);
    }

    // Signed in: an account not confirmed yet, with a workshop, the create form opened in each mode.
    const pia = await sdkUser(server, 'Pia');
    const workshop = await pia.api.post('/v1/workshops', { body: { title: 'Retro' } });
    await openConsoleWithToken(page, server.url, pia.api.token!, '/');
    await page.locator(`[data-workshop="${workshop.id}"]`).waitFor();
    await page.locator('.create summary').click();
    // The account's time zone is the service's default, UTC; `Intl` writes the day in English. The
    // templates' titles and descriptions are the template catalog's, not the console's words.
    const templates = await pia.api.get('/v1/templates');
    const peoples = [
      'Pia',
      'Retro',
      dayIn('en', 'UTC', workshop.created_at),
      ...templates.flatMap((template) => [template.title, template.description]),
    ];
    for (const mode of ['blank', 'template', 'copy', 'file', 'url']) {
      await page.locator(`.create input[name="mode"][value="${mode}"]`).check();
      expect(await unmarkedTexts(page, peoples), mode).toEqual([]);
      // Longer words than English's, at a laptop's and a phone's width: none cut off.
      await expectNoTextCutOff(page, `the create form (${mode})`);
    }
    // The session ends under the page: the dialog asking for the password again.
    await pia.api.post('/v1/auth/logout');
    await page.locator('.filters select').first().selectOption('facilitator');
    await page.locator('dialog.sign-in-again form').waitFor();
    expect(await unmarkedTexts(page, [...peoples, pia.email])).toEqual([]);
    expect(problems.errors).toEqual([]);
  });
});
