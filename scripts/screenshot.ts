/**
 * `npm run screenshot`: writes `docs/screen.png`, the live screen of a seeded demo workshop as a
 * participant's laptop or the room's projector shows it at 1280×720, and `docs/participant.png`,
 * the participant page of the same workshop on a phone (390×844) after a guest joined from the
 * screen's QR address and gave a point (docs/pages.md shows both), and the facilitator console's
 * views (`console-screenshots.ts`). The server runs in-process over
 * a temporary database; the browser is the system's chromium.
 *
 * `seedDemoWorkshop` is also what `test/screen.test.ts` photographs in its known state.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import type { WorkshopClient } from '../client-sdk/src/index';
import { launchBrowser, openScreen } from '../test/helpers/chromium';
import { sdkUser, sdkWorkshop } from '../test/helpers/sdk';
import { startTestServer } from '../test/helpers/server';
import { photographConsole } from './console-screenshots';

export interface DemoWorkshop {
  workshopId: string;
  facilitator: WorkshopClient;
  /** A participant's token, to open the screen with. */
  participantToken: string;
}

const CLUSTERS = [
  {
    title: 'Went well',
    color: 'green',
    ideas: ['Pairing on the hard bugs', 'Release notes written as we go', 'Demo day every Friday'],
  },
  {
    title: 'To improve',
    color: 'orange',
    ideas: ['Flaky end-to-end tests', 'Reviews wait two days', 'Too many meetings on Tuesday'],
  },
  { title: 'Try next', color: 'blue', ideas: ['A shared on-call handbook', 'No-meeting Wednesday mornings'] },
] as const;

/** Votes per idea, in the order of the ideas above; each participant spends up to three points. */
const VOTES = [3, 1, 2, 4, 2, 1, 3, 2];

/**
 * A retrospective in its voting step: three clusters of ideas (written during the brainstorm) in
 * three canvas zones, votes cast by five participants of six, the timer running. Built over REST
 * with the SDK, as people would.
 */
export async function seedDemoWorkshop(baseUrl: string): Promise<DemoWorkshop> {
  const server = { url: baseUrl };
  const facilitator = (await sdkUser(server, 'Fay')).api;
  const participants: WorkshopClient[] = [];
  for (const name of ['Ada', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara'])
    participants.push((await sdkUser(server, name)).api);
  const { workshop, inWorkshop } = await sdkWorkshop(facilitator, participants, 'Team retro, sprint 42');

  const brainstorm = await facilitator.post('/v1/workshops/{workshop_id}/steps', {
    ...inWorkshop,
    body: { name: 'Brainstorm', instructions: 'One idea per card.' },
  });
  const vote = await facilitator.post('/v1/workshops/{workshop_id}/steps', {
    ...inWorkshop,
    body: {
      name: 'Vote on what matters',
      instructions: 'Three points each: put them on the ideas you want to act on first.',
    },
  });

  // The participants write their ideas during the brainstorm.
  await facilitator.put('/v1/workshops/{id}', {
    params: { path: { id: workshop.id } },
    body: { current_step_id: brainstorm.id },
  });
  const ideaIds: string[] = [];
  const clusterIds: string[] = [];
  for (const cluster of CLUSTERS) {
    const created = await facilitator.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: cluster.title, color: cluster.color },
    });
    clusterIds.push(created.id);
    for (const [index, title] of cluster.ideas.entries()) {
      const author = participants[index % participants.length]!;
      ideaIds.push(
        (
          await author.post('/v1/workshops/{workshop_id}/cards', {
            ...inWorkshop,
            body: { type: 'idea', title, parent: created.id },
          })
        ).id,
      );
    }
  }

  const canvas = await facilitator.post('/v1/workshops/{workshop_id}/canvas', {
    ...inWorkshop,
    body: {
      name: 'Retro board',
      background: { cols: 48, rows: 20 },
      zones: [
        { name: 'Keep', x: 0, y: 0, cols: 16, rows: 20 },
        { name: 'Change', x: 16, y: 0, cols: 16, rows: 20 },
        { name: 'Try', x: 32, y: 0, cols: 16, rows: 20 },
      ],
    },
  });
  for (const [index, zone] of canvas.zones.entries()) {
    await facilitator.put('/v1/workshops/{workshop_id}/canvas/zones/{id}', {
      params: { path: { workshop_id: workshop.id, id: zone.id } },
      body: { cluster_id: clusterIds[index]! },
    });
  }

  await facilitator.put('/v1/workshops/{id}', {
    params: { path: { id: workshop.id } },
    body: { current_step_id: vote.id },
  });
  // Five of the six have voted: the screen says so.
  let voter = 0;
  for (const [index, points] of VOTES.entries()) {
    for (let point = 0; point < points; point++) {
      const by = participants[voter++ % 5]!;
      await by.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
        params: { path: { workshop_id: workshop.id, card_id: ideaIds[index]! } },
        body: { value: 1 },
      });
    }
  }
  await facilitator.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 300 } });
  return { workshopId: workshop.id, facilitator, participantToken: participants[0]!.token! };
}

/**
 * The demo workshop on a guest's phone: joined from the screen's QR address (`/join#code=…`),
 * with the vote step set as a facilitator would for the picture (three points each, on ideas, no
 * new cards), one point given.
 */
async function photographPhone(browser: Browser, baseUrl: string, demo: DemoWorkshop, out: string): Promise<void> {
  const { workshopId: id, facilitator } = demo;
  const workshop = await facilitator.put('/v1/workshops/{id}', {
    params: { path: { id } },
    body: { vote_limit: { positive: 3 } },
  });
  const inStep = { params: { path: { workshop_id: id, id: workshop.current_step_id! } } };
  const step = await facilitator.get('/v1/workshops/{workshop_id}/steps/{id}', inStep);
  await facilitator.put('/v1/workshops/{workshop_id}/steps/{id}', {
    ...inStep,
    body: {
      name: step.name,
      instructions: step.instructions,
      prefs: { allow_add_idea: false, allow_add_cluster: false, allow_vote_on_clusters: false },
    },
  });
  const { access_code } = await facilitator.get('/v1/workshops/{workshop_id}/access_code', {
    params: { path: { workshop_id: id } },
  });
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.goto(`${baseUrl}/join#code=${access_code.replace(/\D/g, '')}`);
  await page.getByLabel('Your name').fill('Sam');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
  await page.getByText('3 of 3 points left to give.').waitFor({ timeout: 5_000 });
  await page.locator('#cards .ideas .plus').first().click();
  await page.getByText('2 of 3 points left to give.').waitFor({ timeout: 5_000 });
  await page.locator('#outbox').waitFor({ state: 'hidden', timeout: 5_000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: out });
}

async function main(): Promise<void> {
  const docs = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');
  // Outside vitest there is no migrated template to copy (test/setup/sqlite.ts): the server
  // migrates a new database of its own.
  const server = await startTestServer({
    databasePath: join(mkdtempSync(join(tmpdir(), 'workshop-screenshots-')), 'demo.db'),
  });
  const browser = await launchBrowser();
  try {
    const demo = await seedDemoWorkshop(server.url);
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    await openScreen(page, server.url, demo.workshopId, demo.participantToken);
    // Participation counts arrive at most once a second: wait for the last votes to be counted.
    await page.getByText('5 of 6 have voted').waitFor({ timeout: 5_000 });
    mkdirSync(docs, { recursive: true });
    await page.screenshot({ path: join(docs, 'screen.png') });
    console.log(`wrote ${join(docs, 'screen.png')}`);
    await photographPhone(browser, server.url, demo, join(docs, 'participant.png'));
    console.log(`wrote ${join(docs, 'participant.png')}`);
    for (const file of await photographConsole(
      browser,
      server.url,
      { workshopId: demo.workshopId, facilitatorToken: demo.facilitator.token! },
      docs,
    ))
      console.log(`wrote ${file}`);
  } finally {
    await browser.close();
    await server.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
