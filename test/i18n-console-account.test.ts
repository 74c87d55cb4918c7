import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { t as said } from '../src/i18n/messages';
import { browserAvailable, htmlLanguage, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { confirmAddress } from './helpers/factories';
import { dayIn } from './helpers/i18n';
import { expectNoTextCutOff, unmarkedTexts } from './helpers/pseudo';
import { sdkUser } from './helpers/sdk';

/*
 * The Account page and an organization's settings in the account's language
 * (docs/i18n.md#which-language), in a real chromium: French with its counts and days, Arabic right
 * to left, and the pseudo-locale marking every word of theirs. People's words (names, addresses,
 * the organization's name, token names, URLs) stay as written.
 */

/**
 * Words on these pages that are nobody's sentence: the moments `Intl` wrote (every one in a
 * `<time>`), and what is shown as code (scopes, events, a token's first characters).
 */
const writtenByIntlOrCode = (page: Page) =>
  page.evaluate(() => Array.from(document.querySelectorAll('time, code'), (element) => element.textContent!.trim()));

/** The role a member's row shows, the row found by words in it (an address, "(you)"). */
async function roleShown(page: Page, words: string): Promise<string | null> {
  const role = page.locator('.member-row', { hasText: words }).locator('.member-role');
  await role.waitFor();
  return role.textContent();
}

describe.skipIf(!browserAvailable)('the Account and Organization pages in their user’s language', () => {
  const browser = useBrowser();
  const server = useServer();

  /** An account in `locale` with a confirmed address, a personal token, and an organization it runs with one more member. */
  async function scene(name: string, locale: string, timeZone: string, organizationName: string) {
    const [owner, other] = await Promise.all([sdkUser(server, name), sdkUser(server, `${name}-colleague`)]);
    for (const person of [owner, other]) await confirmAddress(server, person.email, person.api.token!);
    await owner.api.put('/v1/user/me', { body: { locale, time_zone: timeZone } });
    await owner.api.post('/v1/user/me/api_tokens', { body: { name: 'nightly', scopes: ['workshops:read'] } });
    const org = await owner.api.post('/v1/organizations', { body: { name: organizationName } });
    const inOrg = { params: { path: { id: org.id } } };
    await owner.api.post('/v1/organizations/{id}/members', {
      ...inOrg,
      body: { email: other.email, role: 'facilitator' },
    });
    await owner.api.post('/v1/organizations/{id}/api_tokens', {
      ...inOrg,
      body: { name: 'tracker', scopes: ['members:read'] },
    });
    const me = await owner.api.get('/v1/user/me');
    return { owner, other, org, me };
  }

  it('shows the Account page in French, with French counts and days, not English ones', async () => {
    const { owner, me } = await scene('Fay', 'fr', 'Europe/Paris', 'Atelier Lumière');
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, server.url, owner.api.token!, '/account');
    await shown(page, 'h1', 'Votre compte');
    expect(await htmlLanguage(page)).toEqual({ lang: 'fr', dir: 'ltr' });
    await shown(page, '.account-confirmed', `Confirmée le ${dayIn('fr', 'Europe/Paris', me.confirmed_at!)}`);
    await page.getByRole('form', { name: 'Changer votre mot de passe' }).getByLabel('Mot de passe actuel').waitFor();
    await page.getByText('Au moins 8 caractères. Le changer vous déconnecte partout ailleurs.').waitFor();
    await shown(page, '.session-row .badge', 'Ce navigateur');
    await page.getByRole('button', { name: 'Révoquer nightly' }).waitFor();
    await page
      .getByRole('form', { name: 'Créer un jeton' })
      .getByText('lire les ateliers, leurs étapes et leurs réglages')
      .waitFor();

    await page.getByRole('button', { name: 'Supprimer votre compte…' }).click();
    await page.getByRole('heading', { name: 'Supprimer votre compte\u00a0?' }).waitFor();
    // One session, one token, no notification: French says "0 notification", in the singular.
    await shown(
      page,
      '.deletion-counts',
      said('fr', 'console.account.deletion.also', { sessions: 1, tokens: 1, notifications: 0 }),
    );
    expect(await page.textContent('.deletion-counts')).toMatch(
      /^Sont aussi supprimés\u00a0: 1 session, 1 jeton d’API, 0 notification, /,
    );
    // The only admin of an organization others use is told so, in the singular, and offered no deletion.
    expect(await page.textContent('.account-blocked p')).toBe(
      'Vous êtes l’unique administrateur de 1 organisation que d’autres utilisent encore. Nommez-y d’abord un autre administrateur, ou retirez ses membres et ses ateliers\u00a0; puis revenez ici.',
    );
    await page.getByRole('button', { name: 'Fermer' }).click();
    await page.getByRole('button', { name: 'Supprimer votre compte…' }).waitFor();
    expect(problems.errors).toEqual([]);
  });

  it('shows an organization’s settings in French, its members’ roles and refusals in French words', async () => {
    const { owner, other, org } = await scene('Flo', 'fr', 'Europe/Paris', 'Atelier Soleil');
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, server.url, owner.api.token!, `/organizations/${org.id}`);
    await shown(page, 'h1', 'Atelier Soleil');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Jetons d’API' }).waitFor();
    expect(await roleShown(page, other.email)).toBe('Animateur');
    expect(await roleShown(page, '(vous)')).toBe('Administrateur');
    // The last admin cannot step down: the refusal is said in French, whole.
    await page.getByRole('button', { name: 'Nommer Flo animateur' }).click();
    await shown(
      page,
      '.member-problem',
      'Vous êtes le dernier administrateur de Atelier Soleil, donc votre rôle reste administrateur\u00a0: nommez d’abord un autre administrateur. Une organisation garde toujours un administrateur.',
    );
    await page.getByText('Aucun fournisseur OpenID n’est configuré sur ce serveur', { exact: false }).waitFor();
    expect(problems.errors).toEqual([]);
  });

  it('lays out the Account and Organization pages right to left in Arabic, with no serious accessibility problem', async () => {
    const { owner, org } = await scene('Amal', 'ar', 'Asia/Riyadh', 'مؤسسة الربيع');
    await owner.api.put('/v1/user/me', { body: { name: 'أمل' } });
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, server.url, owner.api.token!, '/account');
    await shown(page, 'h1', said('ar', 'console.account.title'));
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    await shown(page, '.session-row .badge', said('ar', 'console.account.sessions.this_browser'));
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('main')!).direction)).toBe('rtl');
    await expectAccessible(page, 'the Account page, in Arabic');
    await expectNoTextCutOff(page, 'the Account page, in Arabic');
    await page.getByRole('button', { name: said('ar', 'console.account.deletion.open') }).click();
    await page.locator('.deletion-counts').waitFor();
    await expectAccessible(page, 'deleting the account, in Arabic');
    await expectNoTextCutOff(page, 'deleting the account, in Arabic');

    await page.goto(`${server.url}/organizations/${org.id}`);
    await shown(page, 'h1', 'مؤسسة الربيع');
    expect(await roleShown(page, '(أنت)')).toBe('مسؤول');
    await page.getByText(said('ar', 'console.organization.tokens.intro')).waitFor();
    await expectAccessible(page, 'an organization’s settings, in Arabic');
    await expectNoTextCutOff(page, 'an organization’s settings, in Arabic');
    expect(problems.errors).toEqual([]);
  });

  it('leaves nothing in plain English in the pseudo-locale on the Account page and an organization’s settings', async () => {
    const { owner, other, org, me } = await scene('Pia', 'en', 'UTC', 'Acme');
    const pseudo = { ...LAPTOP, extraHTTPHeaders: { 'Accept-Language': 'en-XA' } };
    const { page, problems } = await browser.newPage(pseudo);
    const userAgent = await page.evaluate(() => navigator.userAgent);
    // The browser's and system's names are put into a sentence of the catalog, as the user agent says them.
    const peoples = [me.name, owner.email, other.email, 'Acme', 'nightly', 'tracker', userAgent, 'Chrome', 'Linux'];
    // The avatar's initial, and the SDK's own sessions (its user agent is "node").
    peoples.push(me.name.charAt(0), 'node');

    await openConsoleWithToken(page, server.url, owner.api.token!, '/account');
    await page.locator('.session-row').waitFor();
    expect(await htmlLanguage(page)).toEqual({ lang: 'en-XA', dir: 'ltr' });
    // The language select's options: each language in its own words.
    peoples.push(
      ...(await page.evaluate(() => Array.from(document.querySelectorAll('option'), (o) => o.textContent!))),
    );
    expect(await unmarkedTexts(page, [...peoples, ...(await writtenByIntlOrCode(page))])).toEqual([]);
    await expectNoTextCutOff(page, 'the view (1)');
    await page.locator('.danger-zone button.danger').click();
    await page.locator('.deletion-counts').waitFor();
    expect(await unmarkedTexts(page, [...peoples, ...(await writtenByIntlOrCode(page))])).toEqual([]);
    await expectNoTextCutOff(page, 'the view (2)');

    await page.goto(`${server.url}/organizations/${org.id}`);
    await page.locator('.member-row').first().waitFor();
    await page.locator('.sso').waitFor();
    // Every event listed, as when some are chosen one by one.
    await page.locator('.create-webhook input[type="checkbox"]').first().uncheck();
    await page.locator('.create-webhook .check-grid').waitFor();
    const names = await page.locator('.member-name').allTextContents();
    expect(await unmarkedTexts(page, [...peoples, ...names, ...(await writtenByIntlOrCode(page))])).toEqual([]);
    await expectNoTextCutOff(page, 'the view (3)');
    expect(problems.errors).toEqual([]);
  });
});
