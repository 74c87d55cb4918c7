/**
 * The facilitator console (docs/pages.md#the-console) in Debian's chromium, two figures:
 *
 * 1. Time to first board: from asking for `/workshops/<id>?tab=board` to every one of a workshop's
 *    500 cards on the board (25 clusters of 19 ideas), the median of `--opens` (5) fresh tabs; beside
 *    it, as the baseline of the same run, the live screen (`/screen/<id>`) opening the same workshop
 *    to all its cards. Goal: the console under 1 s.
 * 2. A participant's card on the facilitator's board: `--participants` (500, the room bench's) guests hold a live
 *    state of the workshop (the SDK, in child processes, as their phones would) while they add
 *    `--ideas` (300) ideas, one every `--every` ms (100); for each, the time from sending it to its
 *    title on the console's board. The baseline is the same time to the facilitator's live state in
 *    the SDK (no browser), measured on the same ideas. Goal: the console within 1 s.
 * 3. The board at scale (bench/_console-board.ts): boards of 500 and 2,000 cards opened until the
 *    last card is clickable (budgets 1 s and 2 s), then the longest task while scrolling the page
 *    and while dragging a card (PerformanceObserver 'longtask'; budget: none over 100 ms), beside
 *    the same on a baseline commit's server and console (`--baseline=<rev>`, by default the last
 *    commit before folding, search and one tab stop per card; `--baseline=none` skips it).
 *
 *   npm run bench -- console [--opens=5] [--participants=500] [--ideas=300] [--every=100]
 *     [--parts=open,written,scale] [--baseline=<rev>|none] [--scale-opens=3]
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { createClient } from '../client-sdk/src/index';
import { openWorkshop } from '../client-sdk/src/live';
import { baselineCheckout } from './_baseline';
import { measureScale, printScale, SCALE_BASELINE } from './_console-board';
import { Child, percentile } from './_fanout-processes';
import { startBenchServer, stopAfter, type BenchServer } from './_server';
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const flag = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const OPENS = flag('opens', 5);
const PARTICIPANTS = flag('participants', 500);
const IDEAS = flag('ideas', 300);
const EVERY_MS = flag('every', 100);
const CLUSTERS = 25;
const IDEAS_PER_CLUSTER = 19;
const CLIENT_PROCESSES = 4;
const PARTS = (process.argv.find((a) => a.startsWith('--parts='))?.split('=')[1] ?? 'open,written,scale').split(',');
const BASELINE = process.argv.find((a) => a.startsWith('--baseline='))?.split('=')[1] ?? SCALE_BASELINE;
const SCALE_OPENS = flag('scale-opens', 3);
const here = dirname(fileURLToPath(import.meta.url));
stopAfter('console', 30);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];

const median = (values: number[]) => percentile(values, 50);
const ms = (value: number) => `${Math.round(value)} ms`;

/** A workshop of 25 clusters of 19 ideas (500 cards), its facilitator's token, its code. */
async function seed(server: BenchServer) {
  const fay = await server.signup('Fay');
  const workshop = await server.api('POST', '/v1/workshops', fay.token, { title: 'Bench board' });
  const cards = `/v1/workshops/${workshop.id}/cards`;
  for (let c = 1; c <= CLUSTERS; c++) {
    const cluster = await server.api('POST', cards, fay.token, { type: 'cluster', title: `Cluster ${c}` });
    await Promise.all(
      Array.from({ length: IDEAS_PER_CLUSTER }, (_, i) =>
        server.api('POST', cards, fay.token, { parent: cluster.id, title: `Seeded idea ${c}-${i + 1}` }),
      ),
    );
  }
  const { access_code } = await server.api('GET', `/v1/workshops/${workshop.id}/access_code`, fay.token);
  return { token: fay.token as string, id: workshop.id as string, code: access_code as string };
}

/** Waits until the page's text holds every seeded title; resolves with the milliseconds since `started`. */
async function untilAllCards(page: Page, started: number): Promise<number> {
  await page.waitForFunction(
    (count) => (document.body.textContent?.match(/Seeded idea \d+-\d+/g)?.length ?? 0) >= count,
    CLUSTERS * IDEAS_PER_CLUSTER,
    { polling: 'raf', timeout: 30_000 },
  );
  return performance.now() - started;
}

async function timeToBoard(browser: Browser, url: string, token: string, id: string) {
  const opens = { console: [] as number[], screen: [] as number[] };
  for (let round = 0; round < OPENS; round++) {
    for (const which of ['screen', 'console'] as const) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      // Signed in as each page keeps its token: the console in local storage, the screen in the tab's session storage.
      await context.addInitScript((kept) => {
        localStorage.setItem('workshop-console-token', kept);
        sessionStorage.setItem('workshop-screen-token', kept);
      }, token);
      const page = await context.newPage();
      const address = which === 'console' ? `${url}/workshops/${id}?tab=board` : `${url}/screen/${id}`;
      const started = performance.now();
      await page.goto(address);
      opens[which].push(await untilAllCards(page, started));
      await context.close();
    }
  }
  return { console: median(opens.console), screen: median(opens.screen) };
}

/** Guests joined with the code, and child processes holding each one's live state. */
async function joinGuests(server: BenchServer, id: string, code: string) {
  const tokens: string[] = [];
  for (let i = 0; i < PARTICIPANTS; i++) {
    const res = await fetch(`${server.url}/v1/workshops/join/guest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ access_code: code, name: `Guest ${i + 1}` }),
    });
    if (!res.ok) throw new Error(`guest join → ${res.status} ${await res.text()}`);
    tokens.push(((await res.json()) as { token: string }).token);
  }
  const children = Array.from(
    { length: CLIENT_PROCESSES },
    (_, i) => new Child(fork(join(here, '_room-clients.ts'), [], { execArgv: ['--import', 'tsx'] }), `clients-${i}`),
  );
  const opened = tokens.map((token, i) => {
    const child = children[i % CLIENT_PROCESSES]!;
    child.send({ type: 'open', url: server.url, workshopId: id, token });
    return child.next((m) => m.type === 'opened');
  });
  await Promise.all(opened);
  return { tokens, children };
}

async function cardToBoard(browser: Browser, server: BenchServer, seeded: Awaited<ReturnType<typeof seed>>) {
  const { tokens, children } = await joinGuests(server, seeded.id, seeded.code);
  const clusters = (await server.api('GET', `/v1/workshops/${seeded.id}/cards?type=cluster`, seeded.token)) as Array<{
    id: string;
  }>;
  // The facilitator's board, noting when each written title first shows (wall clock, as this process's).
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript((kept) => localStorage.setItem('workshop-console-token', kept), seeded.token);
  const page = await context.newPage();
  await page.goto(`${server.url}/workshops/${seeded.id}?tab=board`);
  await untilAllCards(page, performance.now());
  await page.evaluate(() => {
    const seen: Record<string, number> = {};
    (window as unknown as { seenAt: Record<string, number> }).seenAt = seen;
    new MutationObserver((records) => {
      const now = performance.timeOrigin + performance.now();
      for (const record of records)
        for (const node of Array.from(record.addedNodes))
          for (const match of (node.textContent ?? '').matchAll(/Written idea (\d+)/g)) seen[match[1]!] ??= now;
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  // The baseline: the facilitator's live state in the SDK.
  const sdk = await openWorkshop(createClient({ baseUrl: server.url, token: seeded.token }), seeded.id);
  const sdkSeen: Record<string, number> = {};
  sdk.on('card:created', ({ card }) => {
    const match = /Written idea (\d+)/.exec(card.title);
    if (match) sdkSeen[match[1]!] ??= Date.now();
  });

  const sentAt: number[] = [];
  for (let n = 0; n < IDEAS; n++) {
    const token = tokens[n % tokens.length]!;
    const parent = clusters[n % clusters.length]!.id;
    sentAt[n] = Date.now();
    void server.api('POST', `/v1/workshops/${seeded.id}/cards`, token, { parent, title: `Written idea ${n}` });
    await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
  }
  await page.waitForFunction(
    (count) => Object.keys((window as unknown as { seenAt: object }).seenAt).length >= count,
    IDEAS,
    { timeout: 30_000 },
  );
  const boardSeen = await page.evaluate(() => (window as unknown as { seenAt: Record<string, number> }).seenAt);
  const delays = (seen: Record<string, number>) => sentAt.map((sent, n) => seen[String(n)]! - sent);
  sdk.close();
  await context.close();
  await Promise.all(children.map((child) => child.stop()));
  return { board: delays(boardSeen), sdk: delays(sdkSeen) };
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
try {
  if (PARTS.includes('open') || PARTS.includes('written')) {
    const server = await startBenchServer();
    try {
      await firstBoard(server);
    } finally {
      await server.stop();
    }
  }
  if (PARTS.includes('scale')) {
    const current = await measureScale(browser, 'this checkout', {}, SCALE_OPENS);
    const baseline =
      BASELINE === 'none'
        ? null
        : await measureScale(
            browser,
            `baseline ${BASELINE}`,
            { entry: `${baselineCheckout(BASELINE)}/bench/server.ts` },
            SCALE_OPENS,
          );
    printScale(current, baseline);
  }
} finally {
  await browser.close();
}

async function firstBoard(server: BenchServer) {
  const seeded = await seed(server);
  if (PARTS.includes('open')) {
    const opened = await timeToBoard(browser, server.url, seeded.token, seeded.id);
    console.log(`time to first board, ${CLUSTERS * (IDEAS_PER_CLUSTER + 1)} cards, median of ${OPENS} opens:`);
    console.log(
      `  console ${ms(opened.console)}   screen (baseline) ${ms(opened.screen)}   ratio ${(opened.console / opened.screen).toFixed(2)}   goal: console < 1000 ms`,
    );
  }
  if (!PARTS.includes('written')) return;
  const written = await cardToBoard(browser, server, seeded);
  const line = (values: number[]) =>
    `p50 ${ms(percentile(values, 50))}  p95 ${ms(percentile(values, 95))}  max ${ms(Math.max(...values))}`;
  console.log(
    `a participant's idea to the facilitator, ${IDEAS} ideas from ${PARTICIPANTS} live guests, one every ${EVERY_MS} ms:`,
  );
  console.log(`  console board       ${line(written.board)}`);
  console.log(`  SDK state (baseline) ${line(written.sdk)}`);
  console.log(
    `  ratio p50 ${(percentile(written.board, 50) / percentile(written.sdk, 50)).toFixed(2)}  p95 ${(percentile(written.board, 95) / percentile(written.sdk, 95)).toFixed(2)}   goal: board p95 < 1000 ms`,
  );
}
