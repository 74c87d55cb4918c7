/**
 * The console's board at scale, for bench/console.ts: on one server (this checkout's or a
 * baseline's), boards of 500 and 2,000 cards (clusters of 19 ideas), each opened `opens` times in
 * a fresh tab, timed in the page from the navigation's start until every card is drawn and the last
 * one, scrolled to, is the element under a click at its middle (the median is kept); then, on the
 * last tab, the tasks over 50 ms (PerformanceObserver 'longtask') while the wheel scrolls the page
 * from top to bottom, and while a card is dragged across the board and to the window's bottom edge
 * (where the board scrolls under it), then let go with Escape.
 */
import type { Browser, Page } from 'playwright-core';
import { percentile } from './_fanout-processes';
import { startBenchServer, type BenchServer, type BenchServerOptions } from './_server';

/** The last commit before the board folded, searched and kept one tab stop per card. */
export const SCALE_BASELINE = 'a0623f0';
const SIZES = [
  { cards: 500, budgetMs: 1000 },
  { cards: 2000, budgetMs: 2000 },
];
const IDEAS_PER_CLUSTER = 19;
const LONG_TASK_BUDGET_MS = 100;

export interface ScaleFigures {
  name: string;
  sizes: Array<{ cards: number; budgetMs: number; usableMs: number; scrolling: number[]; dragging: number[] }>;
}

/** A workshop of `cards` cards in clusters of 19 ideas, imported as CSV; its id and facilitator's token. */
async function seedBoard(server: BenchServer, cards: number) {
  const fay = await server.signup(`Fay ${cards}`);
  const workshop = await server.api('POST', '/v1/workshops', fay.token, { title: `Board of ${cards}` });
  const lines = ['type,title,cluster'];
  for (let c = 1; c <= cards / (IDEAS_PER_CLUSTER + 1); c++) {
    lines.push(`cluster,Theme ${c},`);
    for (let i = 1; i <= IDEAS_PER_CLUSTER; i++) lines.push(`idea,Scaled idea ${c}-${i},Theme ${c}`);
  }
  const form = new FormData();
  form.set('file', new Blob([lines.join('\n')], { type: 'text/csv' }), 'cards.csv');
  const res = await fetch(`${server.url}/v1/workshops/${workshop.id}/cards`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${fay.token}` },
    body: form,
  });
  if (!res.ok) throw new Error(`CSV import → ${res.status} ${await res.text()}`);
  return { token: fay.token, id: workshop.id as string };
}

/** In the page: milliseconds from the navigation's start until the last of `ideas` ideas is drawn and takes a click. */
function untilUsable(page: Page, ideas: number): Promise<number> {
  // No named function inside: tsx would wrap it in a helper the page does not have.
  return page.evaluate(async (count) => {
    for (;;) {
      const all = document.querySelectorAll('.clusters .idea');
      const last = all.length >= count ? all[all.length - 1]!.querySelector<HTMLElement>('.card-title') : null;
      if (last) {
        last.scrollIntoView({ block: 'center' });
        const box = last.getBoundingClientRect();
        const under = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (under && last.contains(under)) return performance.now();
      }
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  }, ideas);
}

/** Starts noting long tasks in the page; `longTasks` reads and clears them. */
const watchLongTasks = (page: Page) =>
  page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { longTasks: number[] }).longTasks = seen;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) seen.push(entry.duration);
    }).observe({ type: 'longtask' });
  });
const longTasks = (page: Page) =>
  page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks.splice(0));
const settle = (page: Page) => page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));

async function scrollThrough(page: Page): Promise<number[]> {
  await page.evaluate(() => scrollTo(0, 0));
  await settle(page);
  await longTasks(page);
  await page.mouse.move(640, 400);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  for (let y = 0; y < height; y += 400) {
    await page.mouse.wheel(0, 400);
    await page.waitForTimeout(16);
  }
  await settle(page);
  return longTasks(page);
}

async function dragAcross(page: Page): Promise<number[]> {
  await page.evaluate(() => scrollTo(0, 0));
  await settle(page);
  await longTasks(page);
  const grip = (await page.locator('.idea .grip').first().boundingBox())!;
  await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
  await page.mouse.down();
  await page.mouse.move(900, 300, { steps: 30 });
  await settle(page);
  const across = await longTasks(page);
  await page.mouse.move(700, 795, { steps: 20 });
  await page.waitForTimeout(1500); // the board scrolls under the held card
  await settle(page);
  const edge = await longTasks(page);
  await page.mouse.move(400, 200, { steps: 20 });
  await page.keyboard.press('Escape');
  await page.mouse.up();
  await settle(page);
  const end = await longTasks(page);
  return [...across, ...edge, ...end];
}

export async function measureScale(
  browser: Browser,
  name: string,
  options: BenchServerOptions,
  opens: number,
): Promise<ScaleFigures> {
  const server = await startBenchServer(options);
  const figures: ScaleFigures = { name, sizes: [] };
  try {
    for (const { cards, budgetMs } of SIZES) {
      const board = await seedBoard(server, cards);
      const ideas = (cards / (IDEAS_PER_CLUSTER + 1)) * IDEAS_PER_CLUSTER;
      const usable: number[] = [];
      let page: Page | null = null;
      for (let round = 0; round < opens; round++) {
        await page?.context().close();
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        await context.addInitScript((kept) => localStorage.setItem('workshop-console-token', kept), board.token);
        page = await context.newPage();
        await page.goto(`${server.url}/workshops/${board.id}?tab=board`, { waitUntil: 'commit' });
        usable.push(await untilUsable(page, ideas));
      }
      await watchLongTasks(page!);
      const scrolling = await scrollThrough(page!);
      const dragging = await dragAcross(page!);
      await page!.context().close();
      figures.sizes.push({ cards, budgetMs, usableMs: percentile(usable, 50), scrolling, dragging });
    }
  } finally {
    await server.stop();
  }
  return figures;
}

const ms = (value: number) => `${Math.round(value)} ms`;
const tasks = (values: number[]) =>
  values.length === 0
    ? 'no long task'
    : `longest ${ms(Math.max(...values))}, ${values.filter((v) => v > LONG_TASK_BUDGET_MS).length} over ${LONG_TASK_BUDGET_MS} ms`;
const verdict = (ok: boolean) => (ok ? 'within budget' : 'OVER BUDGET');

export function printScale(current: ScaleFigures, baseline: ScaleFigures | null): void {
  for (const [i, size] of current.sizes.entries()) {
    const base = baseline?.sizes[i];
    console.log(`the board at ${size.cards} cards (${current.name}${base ? ` beside ${baseline!.name}` : ''}):`);
    console.log(
      `  usable (last card clickable) ${ms(size.usableMs)}${base ? `   baseline ${ms(base.usableMs)}   ratio ${(size.usableMs / base.usableMs).toFixed(2)}` : ''}   budget < ${size.budgetMs} ms: ${verdict(size.usableMs < size.budgetMs)}`,
    );
    for (const what of ['scrolling', 'dragging'] as const) {
      const ok = size[what].every((v) => v <= LONG_TASK_BUDGET_MS);
      console.log(
        `  ${what}: ${tasks(size[what])}${base ? `   baseline: ${tasks(base[what])}` : ''}   budget none over ${LONG_TASK_BUDGET_MS} ms: ${verdict(ok)}`,
      );
    }
  }
}
