import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserAvailable, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, PHONE } from './helpers/console';
import { boardScene, clusterColumn, openBoard } from './helpers/console-board';
import { SDK_PASSWORD } from './helpers/sdk';
import { startTestServer } from './helpers/server';
import { dropPostgresDatabase, testStore } from './helpers/store';

/*
 * Nothing typed in the console is lost (docs/pages.md#nothing-typed-is-lost), in a real chromium
 * against a real server: a step's edits kept when another step, another tab or the back button
 * closes its editor; a session revoked while a card is typed, noticed at once, the password asked
 * over the page and the card then saved as typed; a card added, a card's change saved and a
 * comment posted while the server is stopped, shown waiting and written once each when it is
 * started again on the same port and store.
 *
 * Among the slowest files (about 15 s): the server is stopped and started again, and the writes
 * made meanwhile wait for the console to find it back (the SDK's retries, the live connection's
 * reconnection), in real time.
 */

const stepsOf = (s: Awaited<ReturnType<typeof boardScene>>) =>
  s.fay.api.get('/v1/workshops/{workshop_id}/steps', s.inWorkshop);

async function openAgenda(page: Page, url: string, id: string) {
  await page.getByRole('link', { name: 'Agenda' }).click();
  await page.getByRole('heading', { name: 'Steps' }).waitFor();
  await page.waitForURL(`${url}/workshops/${id}?tab=agenda`);
}

describe.skipIf(!browserAvailable)('the console keeps what is typed', () => {
  const t = useServer();
  const browser = useBrowser();

  it('saves a step as it is typed, and keeps its edits when another step, tab or the back button closes it', async () => {
    const s = await boardScene(t, { Keep: ['Pairing'] });
    for (const name of ['Warm-up', 'Ideas'])
      await s.fay.api.post('/v1/workshops/{workshop_id}/steps', { ...s.inWorkshop, body: { name } });
    const { page } = await openBoard(browser, t, s);
    // Come from the workshops page, so that the back button goes back there within the console.
    await page.getByRole('link', { name: 'Workshops' }).first().click();
    await page.getByRole('link', { name: 'Retro' }).click();
    await openAgenda(page, t.url, s.id);
    const editor = page.getByRole('form', { name: /^Edit the step/ });

    // Typed, then another step clicked at once: the edit is saved, and shows when the step is back.
    await page.getByRole('button', { name: 'Warm-up', exact: true }).click();
    await editor.getByLabel('Instructions').fill('Say one word about your week.');
    await page.getByRole('button', { name: 'Ideas', exact: true }).click();
    await page.getByRole('form', { name: 'Edit the step Ideas' }).waitFor();
    await expect.poll(async () => (await stepsOf(s))[0]!.instructions).toBe('Say one word about your week.');
    await page.getByRole('button', { name: 'Warm-up', exact: true }).click();
    await expect.poll(() => editor.getByLabel('Instructions').inputValue()).toBe('Say one word about your week.');

    // Saved as it is typed, with no button pressed: "Saving…", then "Saved.".
    await editor.getByLabel('Step name').fill('Check-in');
    await expect.poll(() => editor.locator('.done').textContent(), { timeout: 8000 }).toBe('Saved.');
    await expectAccessible(page, 'a step saved as it was typed');
    expect((await stepsOf(s))[0]!.name).toBe('Check-in');

    // A name emptied cannot be saved: the edit is kept and comes back with the step, through another tab.
    await page.getByRole('button', { name: 'Ideas', exact: true }).click();
    await editor.getByLabel('Step name').fill('');
    await editor.getByLabel('Instructions').fill('Write one idea per card.');
    await page.getByRole('link', { name: 'Board' }).click();
    await page.locator('.clusters').waitFor();
    await page.getByRole('link', { name: 'Agenda' }).click();
    await page.getByRole('button', { name: 'Ideas', exact: true }).click();
    await expect.poll(() => editor.getByLabel('Instructions').inputValue()).toBe('Write one idea per card.');
    await editor.getByLabel('Step name').fill('Silent ideas');
    // The back button closes the editor (the console's previous address): the edit is sent on the way.
    await editor.getByLabel('Instructions').fill('Write one idea per card, in silence.');
    await page.goBack();
    await page.getByRole('heading', { name: 'Your workshops' }).waitFor();
    await expect
      .poll(async () => (await stepsOf(s)).map((step) => `${step.name}: ${step.instructions}`))
      .toEqual(['Check-in: Say one word about your week.', 'Silent ideas: Write one idea per card, in silence.']);
  });

  it('notices a session revoked while a card is typed, asks the password over the page, and saves the card as typed', async () => {
    const s = await boardScene(t, { Keep: ['Pairing'] });
    for (const [size, options] of [
      ['laptop', LAPTOP],
      ['phone', PHONE],
    ] as const) {
      const { page } = await openBoard(browser, t, s, options);
      const box = clusterColumn(page, 'Keep').getByLabel('New idea in Keep');
      await box.fill(`Short stand-ups (${size})`);
      // Signed out elsewhere: the live connection is closed by the server, and the console says so at once.
      const token = await page.evaluate(() => localStorage.getItem('workshop-console-token'));
      const { createClient } = await import('../client-sdk/src/index');
      await createClient({ baseUrl: t.url, token }).post('/v1/auth/logout');
      const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
      await dialog.waitFor();
      await expect.poll(() => dialog.textContent()).toContain(s.fay.email);
      await expectAccessible(page, `the session-ended dialog (${size})`);
      if (size === 'phone') {
        // Sent while the session is over (the dialog closed by script, as a page behind it may still
        // be used): the write waits, and goes once the person has signed in again.
        await page.evaluate(() => document.querySelector('dialog')?.close());
        await clusterColumn(page, 'Keep').getByRole('button', { name: 'Add', exact: true }).click();
        await page
          .getByRole('region', { name: 'Waiting to be sent' })
          .getByText('Idea “Short stand-ups (phone)” in Keep')
          .waitFor();
        await expect.poll(() => box.inputValue()).toBe('');
        await page.evaluate(() => document.querySelector('dialog')?.showModal());
      }
      await dialog.getByLabel('Password').fill(SDK_PASSWORD);
      await dialog.getByRole('button', { name: 'Sign in' }).click();
      await dialog.waitFor({ state: 'hidden' });
      // What was typed is still there, and goes in with the new token (on the phone it waited, and went by itself).
      if (size === 'laptop') {
        expect(await box.inputValue()).toBe(`Short stand-ups (${size})`);
        await clusterColumn(page, 'Keep').getByRole('button', { name: 'Add', exact: true }).click();
      }
      // The test's client held the revoked token too: it goes on with the console's new one.
      const newToken = await page.evaluate(() => localStorage.getItem('workshop-console-token'));
      expect(newToken).not.toBe(token);
      s.fay.api.setToken(newToken);
      await expect
        .poll(async () => (await s.fay.api.get('/v1/workshops/{workshop_id}/cards', s.inWorkshop)).map((c) => c.title))
        .toContain(`Short stand-ups (${size})`);
      await page.getByRole('region', { name: 'Waiting to be sent' }).waitFor({ state: 'detached' });
      // The live connection came back with the new token: another's card shows without a reload.
      await s.pat.api.post('/v1/workshops/{workshop_id}/cards', {
        ...s.inWorkshop,
        body: { title: `Pat's (${size})`, parent: s.cards.Keep! },
      });
      await page.getByText(`Pat's (${size})`).first().waitFor();
      await page.close();
    }
  });

  it('keeps a card added, a card changed and a comment posted while the server is away, shows them waiting, and writes each once when it is back', async () => {
    const first = await startTestServer();
    const port = Number(new URL(first.url).port);
    let second: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      const s = await boardScene(first, { Keep: ['Pairing'] });
      const { page } = await openBoard(browser, first, s);
      await expectAccessible(page, 'the board, nothing waiting');
      await page.getByRole('button', { name: 'Pairing', exact: true }).click();
      const detail = page.getByRole('dialog', { name: 'Pairing' });
      await detail.getByLabel('Add a comment').waitFor();
      // The server stops: the console's live connection drops.
      await first.server.close();
      await first.deps.database.close();
      await page.locator('.workshop[data-live="reconnecting"]').waitFor();
      await detail.getByLabel('Title').fill('Pairing daily');
      await detail.getByRole('button', { name: 'Save' }).click();
      await detail.getByText('Waiting for the server: saved once it is back.').waitFor({ timeout: 20_000 });
      await detail.getByLabel('Add a comment').fill('Said while away');
      await detail.getByRole('button', { name: 'Post the comment' }).click();
      await detail.getByText('Waiting for the server: posted once it is back.').waitFor({ timeout: 20_000 });
      await page.keyboard.press('Escape');
      await detail.waitFor({ state: 'detached' });
      await clusterColumn(page, 'Keep').getByLabel('New idea in Keep').fill('Written while away');
      await clusterColumn(page, 'Keep').getByRole('button', { name: 'Add', exact: true }).click();
      const waiting = page.getByRole('region', { name: 'Waiting to be sent' });
      await waiting.getByText('Idea “Written while away” in Keep').waitFor({ timeout: 20_000 });
      for (const [size, options] of [
        ['laptop', LAPTOP],
        ['phone', PHONE],
      ] as const) {
        await page.setViewportSize(options.viewport!);
        await expectAccessible(page, `a write waiting (${size})`);
      }
      // Started again on the same port over the same store: the write goes, once, and the list empties.
      second = await startTestServer({}, { shareDatabaseOf: first, port });
      await waiting.waitFor({ state: 'detached', timeout: 30_000 });
      await page.locator('.workshop[data-live="live"]').waitFor({ timeout: 30_000 });
      await clusterColumn(page, 'Keep').getByText('Written while away').waitFor({ timeout: 20_000 });
      const cards = await s.fay.api.get('/v1/workshops/{workshop_id}/cards', s.inWorkshop);
      expect(cards.filter((card) => card.title === 'Written while away')).toHaveLength(1);
      expect(cards.find((card) => card.id === s.cards.Pairing)?.title).toBe('Pairing daily');
      const comments = await s.fay.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/comments', s.onCard('Pairing'));
      expect(comments.map((comment) => comment.content)).toEqual(['Said while away']);
    } finally {
      await second?.close();
      if (testStore === 'postgres' && first.deps.config.databaseUrl)
        await dropPostgresDatabase(first.deps.config.databaseUrl);
      else rmSync(dirname(first.deps.config.databasePath), { recursive: true, force: true });
    }
  });
});
