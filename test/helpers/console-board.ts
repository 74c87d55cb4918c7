import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import type { TestBrowser } from './browser';
import { LAPTOP, openConsoleWithToken } from './console';
import { sdkUser, sdkWorkshop } from './sdk';
import type { TestServer } from './server';

/*
 * The console's Board tab as its tests drive it: a workshop set up through the SDK, its board
 * opened as the facilitator, and the cards found by their titles.
 */

/** Fay facilitates "Retro", Pat takes part; `clusters` by title, each with its ideas (`cards` maps titles to ids). */
export async function boardScene(t: Pick<TestServer, 'url'>, clusters: Record<string, string[]>) {
  const fay = await sdkUser(t, 'Fay');
  const pat = await sdkUser(t, 'Pat');
  const { id, inWorkshop } = await sdkWorkshop(fay.api, [pat.api], 'Retro');
  const cards: Record<string, string> = {};
  for (const [title, ideas] of Object.entries(clusters)) {
    const cluster = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title, color: 'blue' },
    });
    cards[title] = cluster.id;
    for (const idea of ideas) {
      const card = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { title: idea, parent: cluster.id },
      });
      cards[idea] = card.id;
    }
  }
  const card = (title: string) => ({ params: { path: { workshop_id: id, id: cards[title]! } } });
  const onCard = (title: string) => ({ params: { path: { workshop_id: id, card_id: cards[title]! } } });
  return { fay, pat, id, inWorkshop, cards, card, onCard };
}
export type BoardScene = Awaited<ReturnType<typeof boardScene>>;

/** The board of `s`'s workshop, signed in as Fay (the token put where the console keeps it). */
export async function openBoard(
  browser: TestBrowser,
  t: Pick<TestServer, 'url'>,
  s: BoardScene,
  options: BrowserContextOptions = LAPTOP,
) {
  const opened = await browser.newPage(options);
  const { page } = opened;
  page.setDefaultTimeout(8000);
  await openConsoleWithToken(page, t.url, s.fay.api.token!, `/workshops/${s.id}?tab=board`);
  await page.getByRole('heading', { level: 1, name: 'Retro' }).waitFor();
  await page.locator('.clusters').waitFor();
  return opened;
}

export const ideaCard = (page: Page, title: string) =>
  page.locator('.idea').filter({ has: page.getByRole('button', { name: title, exact: true }) });
export const clusterColumn = (page: Page, title: string) =>
  page.locator('.cluster').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
/** The titles of the ideas the board shows in cluster `title`, in order. */
export const titlesIn = (page: Page, title: string) =>
  clusterColumn(page, title).locator('.idea .card-title').allTextContents();

type Point = { x: number; y: number };

/**
 * Drags `from` by its grip and lets go at `to` in small steps, as a hand would. `to` is a point in
 * the page, or where to aim, asked once the card is taken: as an eye follows its target, the aim
 * sees the board as it is then, not as it was before anything the page drew since.
 */
export async function dragTo(page: Page, from: Locator, to: Point | (() => Promise<Point>)): Promise<void> {
  const grip = (await from.locator('.grip').first().boundingBox())!;
  const start = { x: grip.x + grip.width / 2, y: grip.y + grip.height / 2 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 8, start.y + 8, { steps: 2 }); // past the threshold: the drag begins
  const end = typeof to === 'function' ? await to() : to;
  await page.mouse.move(end.x, end.y, { steps: 8 });
  await page.mouse.up();
}

/** The point across the middle of `locator`, `down` of the way from its top (0.5: its centre). */
export async function pointIn(locator: Locator, down: number): Promise<{ x: number; y: number }> {
  const box = (await locator.boundingBox())!;
  return { x: box.x + box.width / 2, y: box.y + box.height * down };
}
