import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { t as said } from '../src/i18n/messages';
import { browserAvailable, htmlLanguage, messagesFetched, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken } from './helpers/console';
import { joinAsGuest, workshopWithCode } from './helpers/participant';
import { unmarkedTexts } from './helpers/pseudo';
import { sdkClusterWithIdea } from './helpers/sdk';

/*
 * The participant page's workshop view in other languages (docs/i18n.md#which-language), in a
 * real chromium at a phone's size: a Spanish phone beside the facilitator's English console on the
 * same workshop, Arabic right to left, and the pseudo-locale finding any word left in English. The
 * words expected are the catalogs', formatted on the server.
 */

const phone = (locale: string): BrowserContextOptions => ({
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  locale,
});

/** Fay's workshop in a step that lets people add ideas, vote (3 points) and comment, with a cluster holding one idea. */
async function runningWorkshop(t: { url: string }, title: string) {
  const { fay, id, inWorkshop, code } = await workshopWithCode(t, title);
  await fay.put('/v1/workshops/{id}', {
    params: { path: { id } },
    body: { vote_limit: { positive: 3, negative: 0, max_positive: 2, max_negative: 1 } },
  });
  const step = await fay.post('/v1/workshops/{workshop_id}/steps', {
    ...inWorkshop,
    body: {
      name: 'Collect',
      prefs: { allow_add_idea: true, allow_add_cluster: true, allow_vote_on_ideas: true, allow_comment: true },
    },
  });
  await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });
  const { cluster, idea } = await sdkClusterWithIdea(fay, inWorkshop, 'Topics', 'Vote on me');
  return { fay, id, inWorkshop, code, cluster, idea };
}

const onList = (page: Page, cardId: string) => page.locator(`#cards [data-card-id="${cardId}"]`);

describe.skipIf(!browserAvailable)('the participant page’s workshop in other languages', () => {
  const browser = useBrowser();
  const server = useServer();

  it('a Spanish guest’s phone speaks Spanish while the facilitator’s console beside it stays English, both live', async () => {
    const { fay, id, code, idea } = await runningWorkshop(server, 'Retro');
    const console = await browser.newPage(LAPTOP);
    await openConsoleWithToken(console.page, server.url, fay.token!, `/workshops/${id}?tab=run`);
    await shown(console.page, '.run-step h2', said('en', 'console.run.step.title'));

    const { page, problems } = await browser.newPage(phone('es-ES'));
    const fetched = messagesFetched(page, 'participant');
    await joinAsGuest(page, server.url, code, 'Lucía', 'es');
    expect(await htmlLanguage(page)).toEqual({ lang: 'es', dir: 'ltr' });
    // The frame comes from the server in the browser's language already, not English first.
    const served = await (await fetch(`${server.url}/w/${id}`, { headers: { 'accept-language': 'es' } })).text();
    expect(served).toContain('>Añadir una idea</h2>');
    await shown(page, '#points', 'Le quedan 3 de 3 puntos por dar.');
    await shown(page, '#idea-form h2', 'Añadir una idea');
    await shown(page, '#leave', 'Salir');
    expect(await page.getByLabel('Su idea').count()).toBe(1);
    const card = onList(page, idea.id);
    await card.getByRole('button', { name: 'Dar un punto a «Vote on me»' }).click();
    await shown(page, '#points', 'Le quedan 2 de 3 puntos por dar.');
    await card.getByRole('button', { name: 'Dar un punto a «Vote on me»' }).click();
    await shown(
      page,
      `#cards [data-card-id="${idea.id}"] .vote-note`,
      'No más en esta tarjeta: como máximo 2 puntos en una tarjeta.',
    );
    await page.getByLabel('Su idea').fill('Más plantas');
    await page.getByRole('button', { name: 'Añadir idea' }).click();
    await shown(page, '#cards', /Más plantas/);

    // The console, open all along, stays English and sees the Spanish phone's idea and presence.
    expect(await htmlLanguage(console.page)).toEqual({ lang: 'en', dir: 'ltr' });
    await shown(console.page, '.run-presence-count', said('en', 'console.run.room.connected', { count: 2 }));
    await openConsoleWithToken(console.page, server.url, fay.token!, `/workshops/${id}?tab=board`);
    await console.page.getByText('Más plantas').waitFor({ timeout: 5_000 });
    expect(await htmlLanguage(console.page)).toEqual({ lang: 'en', dir: 'ltr' });
    // And the phone follows the console's writes, in Spanish.
    await fay.post('/v1/workshops/{workshop_id}/cards', {
      params: { path: { workshop_id: id } },
      body: { type: 'cluster', title: 'Ideas nuevas' },
    });
    await shown(page, '#cards', /Ideas nuevas/);
    expect(fetched).toEqual(['es']);
    expect(problems.errors).toEqual([]);
    expect(console.problems.errors).toEqual([]);
  });

  it('an Arabic guest’s workshop does not read left to right or trip a screen reader', async () => {
    const { code, idea } = await runningWorkshop(server, 'ورشة الربيع');
    const { page, problems } = await browser.newPage(phone('ar-EG'));
    await joinAsGuest(page, server.url, code, 'سلمى', 'ar');
    expect(await htmlLanguage(page)).toEqual({ lang: 'ar', dir: 'rtl' });
    await shown(page, '#points', said('ar', 'participant.votes.left', { left: 3, total: 3 }));
    await shown(page, '#step-name', 'Collect');
    await shown(page, '#leave', said('ar', 'participant.frame.leave'));
    await shown(page, '#presence', said('ar', 'participant.frame.presence', { count: 1 }));
    const card = onList(page, idea.id);
    await card.getByRole('button', { name: said('ar', 'participant.card.comment') }).click();
    await shown(page, `#cards [data-card-id="${idea.id}"] .comment-list`, said('ar', 'participant.card.no_comments'));
    const direction = await page.evaluate(() => getComputedStyle(document.getElementById('workshop')!).direction);
    expect(direction).toBe('rtl');
    await expectAccessible(page, 'the workshop view in Arabic');
    expect(problems.errors).toEqual([]);
  });

  it('no word is left in plain English in the pseudo-locale on a running step with cards, votes and the outbox', async () => {
    const { code, idea } = await runningWorkshop(server, 'Retro');
    const { page, problems } = await browser.newPage(phone('en-US'));
    await page.addInitScript(() => localStorage.setItem('workshop-participant-language', 'en-XA'));
    await page.goto(`${server.url}/join#code=${code}`);
    await page.locator('#name').fill('Gus');
    await page.locator('#join-button').click();
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect((await htmlLanguage(page)).lang).toBe('en-XA');
    await page.waitForFunction(() => /\d/.test(document.getElementById('points')!.textContent ?? ''));
    const card = onList(page, idea.id);
    await card.locator('.vote-button.plus').click();
    await card.locator('.comments-toggle').click();
    await card.locator('.comment-form textarea').fill('Agreed');
    await card.locator('.comment-form button').click();

    // Offline, a new idea waits in the outbox.
    await page.context().setOffline(true);
    await page.locator('#idea-title').fill('Plants');
    await page.locator('#idea-form-button').click();
    await page.locator('#outbox-list li').first().waitFor();
    await page.locator('#connection').waitFor();

    const peoples = ['Retro', 'Collect', 'Topics', 'Vote on me', 'Agreed', 'Plants', 'Gus'];
    expect(await unmarkedTexts(page, peoples, '.language-switch')).toEqual([]);
    await page.context().setOffline(false);
    expect(problems.errors).toEqual([]);
  });
});
