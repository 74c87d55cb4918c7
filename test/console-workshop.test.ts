import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, SHOWS_WITHIN_MS, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { createBlankWorkshop, expectAccessible, LAPTOP, PHONE, signUpInConsole } from './helpers/console';
import { readPdf } from './helpers/pdf';

/*
 * A whole workshop in the console (docs/pages.md#the-console), as a new facilitator runs it in a
 * real chromium: an account made, a workshop created and given an agenda and a cluster, started,
 * a guest joining from the participant page on a phone (a second context) and writing an idea that
 * reaches the board live, and the PDF report downloaded with that idea in it.
 */

async function tab(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Workshop' }).getByRole('link', { name, exact: true }).click();
}

describe.skipIf(!browserAvailable)('the console: a whole workshop', () => {
  const t = useServer();
  const browser = useBrowser();

  it('runs from the sign-up to the downloaded PDF, with a guest joining from a phone', async () => {
    const { page, problems } = await browser.newPage({ ...LAPTOP, acceptDownloads: true });
    page.setDefaultTimeout(SHOWS_WITHIN_MS);
    await signUpInConsole(page, t.url, 'Fay');
    await createBlankWorkshop(page, 'Friday retro');

    // The agenda: two steps.
    for (const name of ['Collect ideas', 'Vote']) {
      await page.getByLabel('New step').fill(name);
      await page.getByRole('button', { name: 'Add step' }).click();
      await page.locator('.step-row', { hasText: name }).waitFor();
    }
    // The board: a cluster for the ideas.
    await tab(page, 'Board');
    const cluster = page.getByRole('form', { name: 'Add a cluster' });
    await cluster.getByLabel('Cluster title').fill('Went well');
    await cluster.getByRole('button', { name: 'Add cluster' }).click();
    await page.getByLabel('New idea in Went well').waitFor();

    // Running: the first step, and the way in for the room.
    await tab(page, 'Run');
    await page.getByRole('button', { name: 'First step' }).click();
    await shown(page, '.run-step-title', 'Collect ideas');
    const code = (await page.locator('.run-code').textContent())!.replace(/\D/g, '');
    expect(code).toMatch(/^\d{9}$/);
    await expectAccessible(page, 'the run tab, live');

    // A guest joins on a phone, in a context of its own, and writes an idea.
    const phone = await browser.newPage(PHONE);
    await phone.page.goto(`${t.url}/join#code=${code}`);
    await phone.page.getByLabel('Your name').fill('Sam');
    await phone.page.getByRole('button', { name: 'Join' }).click();
    await phone.page.locator('body[data-status="live"]').waitFor();
    await shown(phone.page, '#step-name', 'Collect ideas');
    await phone.page.getByLabel('Your idea').fill('Pairing on the release');
    await phone.page.getByRole('button', { name: 'Add idea' }).click();

    // It reaches the facilitator's board live, and the room's figures count the guest.
    await tab(page, 'Board');
    await page.getByText('Pairing on the release').waitFor();
    await tab(page, 'Run');
    await page.getByRole('button', { name: 'Next step' }).click();
    await shown(phone.page, '#step-name', 'Vote');
    await shown(page, '.run-step-title', 'Vote');

    // The report, made and downloaded from the console.
    await tab(page, 'Exports');
    await page.getByRole('button', { name: 'Export as PDF report' }).click();
    const link = page.locator('.export-row[data-state="success"] a.export-download');
    await link.waitFor({ timeout: 30_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    const bytes = readFileSync((await download.path())!);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await readPdf(new Uint8Array(bytes));
    const text = pdf.pages.map((one) => one.text).join('\n');
    expect(text).toContain('Friday retro');
    expect(text).toContain('Pairing on the release');
    expect(text).toContain('Went well');

    await tab(page, 'Log');
    await page
      .getByText(/Sam .*Pairing on the release|Pairing on the release/)
      .first()
      .waitFor();
    expect([...problems.errors, ...phone.problems.errors]).toEqual([]);
  }, 90_000);
});
