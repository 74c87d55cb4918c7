import type { BrowserContextOptions } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { t as said } from '../src/i18n/messages';
import { browserAvailable, shown, useBrowser, htmlLanguage, messagesFetched } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible } from './helpers/console';
import { sdkUser, sdkWorkshop } from './helpers/sdk';

/*
 * The participant page's join view in other languages (docs/i18n.md), in a real chromium at a
 * phone's size whose browser asks for them: Spanish, and Arabic right to left; the switcher, whose
 * pick outlasts a reload and outranks the browser's languages. Each page loads its own language's
 * messages file only. The words expected are the catalogs', formatted on the server.
 */

const phone = (locale: string): BrowserContextOptions => ({
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  locale,
});

describe.skipIf(!browserAvailable)('the join view in other languages', () => {
  const browser = useBrowser();
  const server = useServer();

  it('is in Spanish for a browser asking for es-ES, accessible, refusals said in Spanish', async () => {
    const { page, problems } = await browser.newPage(phone('es-ES'));
    const fetched = messagesFetched(page, 'participant');
    await page.goto(`${server.url}/join`);
    await shown(page, '#join-title', said('es', 'participant.join.title'));
    expect(await htmlLanguage(page)).toEqual({ lang: 'es', dir: 'ltr' });
    expect(await page.title()).toBe('Unirse al taller');
    expect(await page.textContent('#code-hint')).toBe('Los 9 dígitos que aparecen en la pantalla del taller.');
    await expectAccessible(page, 'the join view in Spanish');

    await page.getByLabel(said('es', 'participant.join.name_label')).fill('Lucía');
    await page.getByRole('button', { name: 'Unirse' }).click();
    await shown(page, '#join-status', said('es', 'participant.join.enter_code'));
    await page.getByLabel('Código de acceso').fill('000-000-000');
    await page.getByRole('button', { name: 'Unirse' }).click();
    await shown(page, '#join-status', said('es', 'participant.join.refused.not_found'));
    expect(fetched).toEqual(['es']);
    expect(problems.errors).toEqual([]);
  });

  it('is in Arabic right to left for ar-EG, accessible, and takes a code typed in Arabic-Indic digits', async () => {
    const fay = (await sdkUser(server, 'Fay')).api;
    const { id, inWorkshop } = await sdkWorkshop(fay, [], 'ورشة الربيع');
    const { access_code } = await fay.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
    const arabicDigits = access_code.replace(/\d/g, (digit) => String.fromCharCode(0x660 + Number(digit)));

    const { page, problems } = await browser.newPage(phone('ar-EG'));
    const fetched = messagesFetched(page, 'participant');
    await page.goto(`${server.url}/join`);
    await shown(page, '#join-title', said('ar', 'participant.join.title'));
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    // Mirrored: the form reads from the right; the code stays left to right, as it is typed.
    const layout = await page.evaluate(() => {
      const words = document.createRange();
      words.selectNodeContents(document.querySelector('label[for="name"]')!);
      const label = words.getBoundingClientRect();
      const input = document.getElementById('name')!.getBoundingClientRect();
      return {
        direction: getComputedStyle(document.getElementById('join')!).direction,
        codeDirection: getComputedStyle(document.getElementById('code')!).direction,
        labelAtRight: Math.abs(label.right - input.right) < 2 && label.left > input.left + 20,
      };
    });
    expect(layout).toEqual({ direction: 'rtl', codeDirection: 'ltr', labelAtRight: true });
    expect(await page.textContent('#code-hint')).toBe('9 أرقام تظهر على شاشة ورشة العمل.');
    await expectAccessible(page, 'the join view in Arabic');

    await page.getByLabel('رمز الدخول').fill(arabicDigits);
    await page.getByLabel('اسمك').fill('سلمى');
    await page.getByRole('button', { name: 'انضمام' }).click();
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect(page.url()).toBe(`${server.url}/w/${id}`);
    expect(await page.textContent('#workshop-title')).toBe('ورشة الربيع');
    expect(fetched).toEqual(['ar']);
    expect(problems.errors).toEqual([]);
  });

  it('switches language from its switcher, and keeps the pick over a reload and over the browser', async () => {
    const { page, problems } = await browser.newPage(phone('es-ES'));
    const fetched = messagesFetched(page, 'participant');
    await page.goto(`${server.url}/join`);
    await shown(page, '#join-title', 'Unirse al taller');
    await page.getByLabel('Código de acceso').fill('12');
    await page.getByRole('button', { name: 'Unirse' }).click();
    await shown(page, '#join-status', said('es', 'participant.join.enter_name'));

    await page.getByLabel(said('es', 'participant.language')).selectOption('ar');
    await shown(page, '#join-title', said('ar', 'participant.join.title'));
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    // What the view had said is said again in the new language.
    await shown(page, '#join-status', said('ar', 'participant.join.enter_name'));
    expect(await page.textContent('label[for="language"]')).toBe('اللغة');
    await expectAccessible(page, 'the join view switched to Arabic');

    await page.getByLabel('اللغة').selectOption('de');
    await shown(page, '#join-title', 'Am Workshop teilnehmen');
    expect(await page.evaluate(() => localStorage.getItem('workshop-participant-language'))).toBe('de');
    await page.reload();
    await shown(page, '#join-title', 'Am Workshop teilnehmen');
    expect(await htmlLanguage(page)).toEqual({ lang: 'de', dir: 'ltr' });
    expect(await page.inputValue('#language')).toBe('de');
    expect(await page.getByRole('button', { name: 'Teilnehmen' }).count()).toBe(1);
    // A file for each language shown (the reload's from the cache or again), none for the others.
    expect(fetched.slice(0, 3)).toEqual(['es', 'ar', 'de']);
    expect(new Set(fetched)).toEqual(new Set(['es', 'ar', 'de']));
    expect(problems.errors).toEqual([]);
  });
});
