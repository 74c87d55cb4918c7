import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { t as said } from '../src/i18n/messages';
import { browserAvailable, openScreen, shown, useBrowser, htmlLanguage, messagesFetched } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible } from './helpers/console';
import { sdkUser, sdkWorkshop } from './helpers/sdk';

/*
 * The live screen in the workshop's language (docs/i18n.md#which-language), in a real chromium at
 * a projector's size whose browser asks for English: French, German after a live change, Arabic
 * right to left and mirrored, and the pseudo-locale, in which every word the screen says itself is
 * marked. The words expected are the catalogs', formatted on the server.
 */

const PROJECTOR = { viewport: { width: 1280, height: 720 }, locale: 'en-US' };

/**
 * The visible texts not marked ⟦ ⟧ as the pseudo-locale marks its messages: each element's own
 * words (its text nodes, read with the elements inside it, as a sentence holds its placeholders),
 * and the labels and titles given to elements. People's words, codes and plain numbers (a score,
 * a running clock) are not the catalogs' and are left out; so is the step's name once a step is
 * current (`stepNamed`), while in the lobby the step line is the screen's own words.
 */
function unmarkedTexts(page: Page, stepNamed = false): Promise<string[]> {
  return page.evaluate((stepNamed) => {
    const people = `#workshop-title, #step-instructions, .card .title, .card .by, .zone-name, #invite-address, #invite-code${stepNamed ? ', #step-name' : ''}`;
    const marked = (text: string) => /^⟦[\s\S]*⟧$/.test(text.trim());
    const found = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent!.trim();
      const parent = node.parentElement!;
      if (!text || /^[\d\s:·⟦⟧-]+$/.test(text) || parent.closest(people) || !parent.checkVisibility()) continue;
      // A sentence holding elements (the invitation) is read whole.
      const sentence = parent.closest('#invite-how') ?? parent;
      if (!marked(sentence.textContent!)) found.add(sentence.textContent!.trim());
    }
    for (const element of Array.from(document.querySelectorAll('[aria-label], [title]'))) {
      for (const name of ['aria-label', 'title']) {
        const value = element.getAttribute(name);
        if (value && !marked(value)) found.add(`${name}: ${value}`);
      }
    }
    return [...found];
  }, stepNamed);
}

describe.skipIf(!browserAvailable)('the screen in the workshop’s language', () => {
  const browser = useBrowser();
  const server = useServer({ publicUrl: 'https://workshops.example.test' });

  it('speaks French for a French workshop on an English browser, and moves to German when the workshop does', async () => {
    const fay = (await sdkUser(server, 'Fay')).api;
    const { id } = await fay.post('/v1/workshops', { body: { title: 'Rétrospective', language: 'fr' } });

    // Before a workshop is known (the sign-in form), the frame is in the browser's language.
    const frame = await fetch(`${server.url}/screen/${id}`, { headers: { 'Accept-Language': 'es-MX, en;q=0.5' } });
    expect(frame.headers.get('vary')).toContain('Accept-Language');
    const html = await frame.text();
    expect(html).toContain('<html lang="es" dir="ltr">');
    expect(html).toContain(`<h1 id="sign-in-title">${said('es', 'screen.sign_in.title')}</h1>`);
    expect(html).toMatch(/<link rel="modulepreload" href="\/screen\/assets\/messages-es-[A-Z0-9]+\.js" \/>/);

    // A step waits: the workshop is in its lobby.
    const inWorkshop = { params: { path: { workshop_id: id } } };
    const step = await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Vote' } });
    const { page, problems } = await browser.newPage(PROJECTOR);
    const fetched = messagesFetched(page, 'screen');
    await openScreen(page, server.url, id, fay.token!);
    // In the lobby: the words of the invitation, a status line, the step line.
    await shown(page, '#step-name', 'L’atelier n’a pas encore commencé');
    expect(await htmlLanguage(page)).toEqual({ lang: 'fr', dir: 'ltr' });
    expect(await page.textContent('#invite-title')).toBe('Rejoignez l’atelier depuis votre téléphone');
    await shown(
      page,
      '#invite-how',
      /^Scannez le code QR ou allez sur workshops\.example\.test\/join, puis saisissez \d{3}-\d{3}-\d{3}$/,
    );
    expect(await page.textContent('#presence')).toBe('1 personne connectée');
    expect(await page.getAttribute('#lobby', 'aria-label')).toBe('Avant la première étape');
    expect(await page.textContent('#sign-out')).toBe('Se déconnecter');

    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });
    await fay.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 90 } });
    await fay.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { action: 'pause' } });
    await shown(page, '#timer', /^1:(30|29) en pause$/);
    await shown(page, '#empty', said('fr', 'screen.empty'));

    // The workshop's language changes: the screen follows, without a reload.
    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { language: 'de' } });
    await shown(page, '#timer', /^1:(30|29) pausiert$/);
    expect(await htmlLanguage(page)).toEqual({ lang: 'de', dir: 'ltr' });
    await shown(page, '#empty', 'Noch keine Karten.');
    expect(await page.textContent('#sign-out')).toBe('Abmelden');
    expect(await page.textContent('#presence')).toBe('1 verbunden');
    // The browser's own language (preloaded), the workshop's, then the new one: nothing else.
    expect(fetched).toEqual(['en', 'fr', 'de']);
    expect(problems.errors).toEqual([]);
  });

  it('speaks Arabic right to left for an Arabic workshop: mirrored, codes left to right, accessible', async () => {
    const fay = (await sdkUser(server, 'Fay')).api;
    const pat = (await sdkUser(server, 'Pat')).api;
    const { id: workshopId } = await fay.post('/v1/workshops', { body: { title: 'ورشة الربيع', language: 'ar' } });
    const inArabic = { params: { path: { workshop_id: workshopId } } };
    const { access_code } = await fay.get('/v1/workshops/{workshop_id}/access_code', inArabic);
    await pat.post('/v1/workshops/join', { body: { access_code } });
    const step = await fay.post('/v1/workshops/{workshop_id}/steps', { ...inArabic, body: { name: 'العصف الذهني' } });

    const { page, problems } = await browser.newPage(PROJECTOR);
    await openScreen(page, server.url, workshopId, fay.token!);
    await shown(page, '#step-name', said('ar', 'screen.step.not_started'));
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    expect(await page.textContent('#invite-title')).toBe('انضم من هاتفك');
    await expectAccessible(page, 'the screen in Arabic, in the lobby');

    await fay.put('/v1/workshops/{id}', { params: { path: { id: workshopId } }, body: { current_step_id: step.id } });
    await fay.post('/v1/workshops/{workshop_id}/cards', { ...inArabic, body: { type: 'cluster', title: 'أفكار' } });
    await shown(page, '#step-name', 'العصف الذهني');
    await shown(page, '#clusters .card .title', 'أفكار');
    const layout = await page.evaluate(() => {
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
      return {
        direction: getComputedStyle(document.getElementById('screen')!).direction,
        codeDirection: getComputedStyle(document.getElementById('invite-code')!).direction,
        addressDirection: getComputedStyle(document.getElementById('invite-address')!).direction,
        // The step's heading starts the line: on the right; the timer, presence and invitation on the left.
        headingAtRight: box('.heading').left > box('#meta').right,
        headingAtEdge: Math.abs(box('.heading').right - box('.top').right) < 2,
        // The first cluster sits at the right of its row, the sign-out button at the left of the footer.
        clusterAtRight: Math.abs(box('#clusters .stack').right - box('#clusters').right) < 2,
        signOutAtLeft: Math.abs(box('#sign-out').left - box('.bottom').left) < 2,
      };
    });
    expect(layout).toEqual({
      direction: 'rtl',
      codeDirection: 'ltr',
      addressDirection: 'ltr',
      headingAtRight: true,
      headingAtEdge: true,
      clusterAtRight: true,
      signOutAtLeft: true,
    });
    // Arabic's plural forms: two people connected (Fay's screen and Pat's).
    const { page: pats } = await browser.newPage(PROJECTOR);
    await openScreen(pats, server.url, workshopId, pat.token!);
    await shown(page, '#presence', said('ar', 'screen.presence', { count: 2 }));
    expect(said('ar', 'screen.presence', { count: 2 })).toBe('شخصان متصلان');
    expect(await page.textContent('#invite-how')).toMatch(
      /^امسح الرمز أو انتقل إلى workshops\.example\.test\/join وأدخل \d{3}-\d{3}-\d{3}$/,
    );
    await expectAccessible(page, 'the screen in Arabic, during a step');
    expect(problems.errors).toEqual([]);
  });

  it('says nothing in plain English in the pseudo-locale: the sign-in form, the lobby and a step', async () => {
    const fay = (await sdkUser(server, 'Fay')).api;
    const { id, inWorkshop } = await sdkWorkshop(fay, [], 'Pseudo workshop');
    const step = await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Collect' } });
    const pseudo = { viewport: PROJECTOR.viewport, extraHTTPHeaders: { 'Accept-Language': 'en-XA' } };

    const { page: signIn } = await browser.newPage(pseudo);
    await signIn.goto(`${server.url}/screen/${id}`);
    await signIn.locator('#sign-in-form').waitFor();
    expect(await htmlLanguage(signIn)).toEqual({ lang: 'en-XA', dir: 'ltr' });
    expect(await signIn.title()).toMatch(/^⟦.*⟧$/);
    expect(await unmarkedTexts(signIn)).toEqual([]);

    const { page, problems } = await browser.newPage(pseudo);
    await openScreen(page, server.url, id, fay.token!);
    // The workshop speaks English: the screen asked for the pseudo-locale by name stays in it.
    await shown(page, '#step-name', /^⟦.*⟧$/);
    await page.locator('#invite-code').waitFor();
    await shown(page, '#invite-how', /^⟦.*\d{3}-\d{3}-\d{3}·*⟧$/);
    expect(await htmlLanguage(page)).toEqual({ lang: 'en-XA', dir: 'ltr' });
    expect(await unmarkedTexts(page)).toEqual([]);

    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });
    const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Went well' },
    });
    await fay.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 60 } });
    await fay.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { action: 'pause' } });
    await shown(page, '#step-name', 'Collect');
    await shown(page, `[data-card-id="${cluster.id}"] .title`, 'Went well');
    await shown(page, '#timer', /^⟦1:00 .*⟧$/);
    await shown(page, '#presence', /^⟦1 .*⟧$/);
    expect(await unmarkedTexts(page, true)).toEqual([]);
    expect(problems.errors).toEqual([]);
  });
});
