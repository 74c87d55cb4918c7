import { describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { sdkRunningWorkshop } from './helpers/sdk';

/*
 * The console's Exports and Log tabs (docs/pages.md#the-console) in a real chromium: an export of
 * each format started from the page and followed live until its link downloads the right kind of
 * file, deleted; and the event log in words, newest first, growing live, a page more at a time.
 *
 * Among the slowest files (about 10 s): an export of each format is made by the real export
 * runner and followed live in the page until its link downloads.
 */

/** What each format's file starts with: a PDF's header, the zip of an Office file, CSV text, JSON. */
const LOOKS_LIKE = {
  pdf: (bytes: Buffer) => bytes.subarray(0, 5).toString('latin1') === '%PDF-',
  xlsx: (bytes: Buffer) => bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])),
  docx: (bytes: Buffer) => bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])),
  csv: (bytes: Buffer) =>
    bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .startsWith('type,title,content'),
  native: (bytes: Buffer) => (JSON.parse(bytes.toString('utf8')) as { format?: string }).format === 'workshop-native',
} as const;
type Format = keyof typeof LOOKS_LIKE;

const BUTTONS: Record<Format, string> = {
  pdf: 'Export as PDF report',
  docx: 'Export as Word document',
  xlsx: 'Export as Excel workbook',
  csv: 'Export as CSV of the cards',
  native: 'Export as Workshop file',
};

describe.skipIf(!browserAvailable)('the console: exports and the log', () => {
  const t = useServer();
  const browser = useBrowser();

  /** Fay's workshop with a step, a cluster and an idea Pat wrote. */
  async function scene() {
    const { fay, pat, id, inWorkshop, cluster } = await sdkRunningWorkshop(t);
    await pat.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'New office plants', parent: cluster.id },
    });
    return { fay, pat, id, inWorkshop, cluster };
  }

  it('starts an export of each format, follows each live to its download, and deletes one', async () => {
    const { fay, id, inWorkshop } = await scene();
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=exports`);
    await shown(page, '.exports .empty', 'No export yet.');
    await expectAccessible(page, 'the exports tab, empty');

    for (const format of Object.keys(BUTTONS) as Format[]) {
      await page.getByRole('button', { name: BUTTONS[format] }).click();
      await expect.poll(() => page.locator('.export-row').count()).toBe(Object.keys(BUTTONS).indexOf(format) + 1);
    }
    // Each becomes ready on the page by its live event, without a reload.
    const ready = page.locator('.export-row[data-state="success"]');
    await expect.poll(() => ready.count(), { timeout: 40_000 }).toBe(5);
    await expectAccessible(page, 'the exports tab, five ready');

    const listed = await fay.api.get('/v1/workshops/{workshop_id}/exports', inWorkshop);
    for (const made of listed) {
      const link = page.locator(`.export-row[data-export="${made.id}"] a.export-download`);
      const href = await link.getAttribute('href');
      expect(href).toBe(made.url);
      const res = await fetch(href!);
      expect(res.status, made.type).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(LOOKS_LIKE[made.type](bytes), `${made.type} file`).toBe(true);
    }

    // Deleting asks first, then the row and the export go.
    const csv = listed.find((made) => made.type === 'csv')!;
    const row = page.locator(`.export-row[data-export="${csv.id}"]`);
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Delete the export' }).click();
    await expect.poll(() => page.locator('.export-row').count()).toBe(4);
    const after = await fay.api.get('/v1/workshops/{workshop_id}/exports', inWorkshop);
    expect(after.map((made) => made.id)).not.toContain(csv.id);
    expect((await fetch(csv.url!)).status).toBe(404);
    expect(problems.errors).toEqual([]);
  });

  it("shows an export started elsewhere arriving live, and the service's refusal in its words", async () => {
    const { fay, id, inWorkshop } = await scene();
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=exports`);
    await shown(page, '.exports .empty', 'No export yet.');
    const made = await fay.api.post('/v1/workshops/{workshop_id}/exports', { ...inWorkshop, body: { type: 'csv' } });
    await page.locator(`.export-row[data-export="${made.id}"][data-state="success"]`).waitFor({ timeout: 20_000 });

    // An archived workshop keeps its exports but makes no new one: the page says so.
    await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { state: 'archived' } });
    await page.getByRole('button', { name: BUTTONS.native }).click();
    await shown(page, '.exports .problem', /archived/i);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'the exports tab on a phone');
    expect(problems.errors).toEqual([]);
  });

  it('shows the log in words, newest first, growing live, with a filter', async () => {
    const { fay, id, inWorkshop } = await scene();
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=log`);
    await shown(page, '.log-entry:first-child .log-words', 'Pat added the idea “New office plants”.');
    expect(await page.locator('.log-words').allTextContents()).toEqual([
      'Pat added the idea “New office plants”.',
      'Fay added the cluster “Highlights”.',
      'Fay moved to the step “Collect”.',
      'Fay added the step “Collect”.',
      'Pat joined the workshop.',
      'Fay created the workshop “Quarterly review”.',
    ]);
    expect(await page.locator('.log-entry time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.getByRole('button', { name: 'Show older changes' }).count()).toBe(0);
    await expectAccessible(page, 'the log tab');

    // A change made now joins the top.
    await fay.api.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 300 } });
    await shown(page, '.log-entry:first-child .log-words', 'Fay started the timer for 5 min.');
    await fay.api.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { action: 'pause' } });
    await shown(page, '.log-entry:first-child .log-words', 'Fay paused the timer.');

    // The filter keeps one kind of change.
    await page.getByLabel('Show').selectOption({ label: 'The agenda and the timer' });
    await expect
      .poll(() => page.locator('.log-words').allTextContents())
      .toEqual([
        'Fay paused the timer.',
        'Fay started the timer for 5 min.',
        'Fay moved to the step “Collect”.',
        'Fay added the step “Collect”.',
      ]);
    expect(problems.errors).toEqual([]);
  });

  it('reads older changes a page at a time, none shown twice though new ones arrive meanwhile', async () => {
    const { fay, pat, id, inWorkshop, cluster } = await scene();
    const addIdea = (title: string) =>
      pat.api.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title, parent: cluster.id },
      });
    for (let i = 1; i <= 35; i++) await addIdea(`Idea ${i}`);
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=log`);
    const entries = page.locator('.log-entry');
    await shown(page, '.log-entry:first-child .log-words', 'Pat added the idea “Idea 35”.');
    expect(await entries.count()).toBe(30);

    // Two changes land before the next page is read: they join the top, and the page read after
    // them (shifted by two) repeats nothing.
    await addIdea('Late one');
    await addIdea('Later one');
    await shown(page, '.log-entry:first-child .log-words', 'Pat added the idea “Later one”.');
    await page.getByRole('button', { name: 'Show older changes' }).click();
    const logged = await fay.api.fetchClient.GET('/v1/workshops/{workshop_id}/events', inWorkshop);
    const total = Number(logged.response.headers.get('x-total-count'));
    await expect.poll(() => entries.count()).toBe(total);
    const words = await page.locator('.log-words').allTextContents();
    expect(new Set(words).size).toBe(words.length);
    expect(words.at(-1)).toBe('Fay created the workshop “Quarterly review”.');
    expect(await page.getByRole('button', { name: 'Show older changes' }).count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'the log tab on a phone');
    expect(problems.errors).toEqual([]);
  });
});
