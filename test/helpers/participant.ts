import type { Page } from 'playwright-core';
import { t as said } from '../../src/i18n/messages';
import { sdkUser, sdkWorkshop } from './sdk';

/*
 * A participant's side of a workshop in a browser (docs/pages.md#participant-page): the
 * facilitator's workshop with its access code, and a guest joining it from the screen's QR address.
 */

/** A workshop Fay facilitates with its code's nine digits, a cluster, and the `in` params for her calls. */
export async function workshopWithCode(t: { url: string }, title = 'Retro') {
  const fay = (await sdkUser(t, 'Fay')).api;
  const { id, inWorkshop } = await sdkWorkshop(fay, [], title);
  const code = (await fay.get('/v1/workshops/{workshop_id}/access_code', inWorkshop)).access_code.replace(/\D/g, '');
  return { fay, id, inWorkshop, code };
}

/**
 * Opens the QR code's address, types a name and joins, by the join view's words in `lang` (the
 * language the page is shown in); resolves once the workshop is live on the page.
 */
export async function joinAsGuest(page: Page, baseUrl: string, code: string, name: string, lang = 'en'): Promise<void> {
  await page.goto(`${baseUrl}/join#code=${code}`);
  await page.getByLabel(said(lang, 'participant.join.name_label')).fill(name);
  await page.getByRole('button', { name: said(lang, 'participant.join.submit') }).click();
  await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
}
