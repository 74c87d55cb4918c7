import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQR from 'jsqr';
import sharp from 'sharp';
import { WebSocket } from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { openCanvas } from '../client-sdk/src/canvas';
import { seedDemoWorkshop } from '../scripts/screenshot';
import { browserAvailable, openScreen, shown, SHOWS_WITHIN_MS, timeToShow, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { listeningPort, serverCommand, startProcess, type ServerProcess } from './helpers/processes';
import { SDK_PASSWORD, sdkClusterWithIdea, sdkUser, sdkWorkshop } from './helpers/sdk';
import { expectAccessible } from './helpers/console';
import { quietFor } from './helpers/wait';

/*
 * The live workshop screen (`/screen/<id>`) in a real chromium: a participant's page follows the
 * facilitator's REST changes as they happen, and comes back by itself after the server restarts.
 *
 * Among the slowest files (20 to 25 s): ten visits of the page in chromium, each signed in and
 * followed live; the restart waits for the page to see the server gone, and to come back by itself
 * once it is up again.
 */

/** Participation counts are sent at most once a second, so they may take up to a second more. */
const PARTICIPATION_WITHIN_MS = 2_000;

describe.skipIf(!browserAvailable)('the live screen', () => {
  const browser = useBrowser();

  describe('on a running server', () => {
    const t = useServer();

    it('serves the page with a strict policy, and signs in with e-mail and password', async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = await sdkUser(t, 'Pat');
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat.api], 'Sign-in <b>workshop</b>');
      const step = await fay.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop,
        body: { name: 'Warm-up', instructions: 'Say hello.' },
      });
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });

      const res = await fetch(`${t.url}/screen/${id}`);
      expect(res.status).toBe(200);
      const policy = res.headers.get('content-security-policy')!;
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain(`connect-src 'self' ws://${new URL(t.url).host} wss://${new URL(t.url).host}`);
      expect(policy).not.toContain('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await res.text();
      const script = /src="(\/screen\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const bundle = await fetch(`${t.url}${script}`);
      expect(bundle.headers.get('content-type')).toContain('javascript');
      expect(bundle.headers.get('cache-control')).toContain('immutable');
      // Sent gzipped (fetch asks for it and unpacks it): the bytes on the wire are a third of the script.
      expect(bundle.headers.get('content-encoding')).toBe('gzip');
      expect((await bundle.text()).length).toBeGreaterThan(50_000);
      expect((await fetch(`${t.url}/screen/assets/app-NOTBUILT.js`)).status).toBe(404);

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      const started = performance.now();
      await page.goto(`${t.url}/screen/${id}`);
      await page.locator('#sign-in-form').waitFor();
      await page.fill('#email', pat.email);
      await page.fill('#password', 'not the password');
      await page.click('button[type="submit"]');
      await shown(page, '#sign-in-status', /./);
      await page.fill('#password', SDK_PASSWORD);
      await page.click('button[type="submit"]');
      await page.locator('body[data-status="live"]').waitFor({ timeout: 5_000 });
      console.log(
        `screen: sign-in page to live screen in ${Math.round(performance.now() - started)} ms (one wrong password included)`,
      );

      expect(await page.textContent('#workshop-title')).toBe('Sign-in <b>workshop</b>');
      expect(await page.textContent('#step-name')).toBe('Warm-up');
      await shown(page, '#presence', '1 connected');
      // The token stays in this tab's session storage: not in the address, not in a cookie.
      expect(page.url()).toBe(`${t.url}/screen/${id}`);
      expect(await page.evaluate(() => document.cookie)).toBe('');
      expect(await page.evaluate(() => sessionStorage.getItem('workshop-screen-token'))).toMatch(/^\S+$/);
      expect(problems.errors).toEqual([]);
    });

    it("follows the facilitator's changes within a second: cards, votes, steps, a forced view, the timer", async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat]);
      const first = await fay.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop,
        body: { name: 'Brainstorm', instructions: 'One idea per card.' },
      });
      const second = await fay.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop,
        body: { name: 'Vote', instructions: 'Three points each.' },
      });
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: first.id } });
      const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Ideas', color: 'blue' },
      });

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      const started = performance.now();
      await openScreen(page, t.url, id, pat.token!);
      const loadMs = Math.round(performance.now() - started);
      expect(page.url()).toBe(`${t.url}/screen/${id}`);
      expect(await page.textContent('#step-name')).toBe('Brainstorm');
      expect(await page.textContent('#step-instructions')).toBe('One idea per card.');

      const taken: Record<string, number> = {};
      let idea = { id: '' };
      taken['new card'] = await timeToShow(
        async () =>
          (idea = await fay.post('/v1/workshops/{workshop_id}/cards', {
            ...inWorkshop,
            body: { type: 'idea', title: 'Shorter standups', parent: cluster.id },
          })),
        () => shown(page, `[data-card-id="${idea.id}"] .title`, 'Shorter standups'),
      );
      expect(await page.textContent(`[data-card-id="${idea.id}"] .score`)).toBe('0');

      const onIdea = { params: { path: { workshop_id: id, card_id: idea.id } } };
      taken['vote changing a score'] = await timeToShow(
        () => fay.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', { ...onIdea, body: { value: 1 } }),
        () => shown(page, `[data-card-id="${idea.id}"] .score`, '1'),
      );
      taken['step change'] = await timeToShow(
        () => fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: second.id } }),
        () => shown(page, '#step-name', 'Vote'),
      );
      expect(await page.textContent('#step-instructions')).toBe('Three points each.');

      // A view the facilitator sets without forcing it leaves a participant's screen on the step's view...
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { view: { card: idea.id } } });
      await quietFor(300, 'the unforced view change reaching the page');
      expect(await page.isVisible('#spotlight')).toBe(false);
      // ...until it is forced: then the screen follows it at once.
      taken['forced view change'] = await timeToShow(
        () => fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { force_sync: true } }),
        () => shown(page, `#spotlight [data-card-id="${idea.id}"] .title`, 'Shorter standups'),
      );
      expect(await page.isVisible('#following')).toBe(true);

      taken['timer start'] = await timeToShow(
        () => fay.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 90 } }),
        () => shown(page, '#timer', /^1:(30|29)$/),
      );
      // It counts down on its own, from the server's end time.
      await shown(page, '#timer', /^1:2\d$/);
      console.log(
        `screen: load to live ${loadMs} ms; change to screen: ${Object.entries(taken)
          .map(([what, ms]) => `${what} ${ms} ms`)
          .join(', ')}`,
      );
      expect(problems.errors).toEqual([]);
    });

    it("shows how many have voted during a vote, and scores only where the step's display prefs allow", async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const otto = (await sdkUser(t, 'Otto')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat, otto]);
      const hidden = await fay.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop,
        body: { name: 'Secret vote', prefs: { allow_display_votes: false } },
      });
      const talk = await fay.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop,
        body: { name: 'Discuss', prefs: { allow_vote_on_ideas: false, allow_vote_on_clusters: false } },
      });
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: hidden.id } });
      const { idea } = await sdkClusterWithIdea(fay, inWorkshop, 'Ideas', 'Pizza friday', pat);

      const { page } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, id, pat.token!);
      await shown(page, '#participation', '0 of 2 have voted');
      const voted = await timeToShow(
        () =>
          otto.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
            params: { path: { workshop_id: id, card_id: idea.id } },
            body: { value: 1 },
          }),
        () => shown(page, '#participation', '1 of 2 has voted', PARTICIPATION_WITHIN_MS),
        PARTICIPATION_WITHIN_MS,
      );
      console.log(`screen: a vote to "1 of 2 has voted" in ${voted} ms`);
      // Votes hidden by the step stay off the screen: no score at all, not even the reader's own.
      expect(await page.locator('.score').count()).toBe(0);

      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: talk.id } });
      await shown(page, '#step-name', 'Discuss');
      expect(await page.isVisible('#participation')).toBe(false);
      // Shown again, the scores are everyone's votes, not the reader's own they were while hidden.
      await shown(page, `[data-card-id="${idea.id}"] .score`, '1');
    });

    it("says what the step keeps private, and names no author the step hid, even on a facilitator's screen", async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat]);
      const open = await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Check-in' } });
      const write = await fay.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop,
        body: { name: 'Write alone', prefs: { cards_visible: 'own', authors: 'hidden_from_participants' } },
      });
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: open.id } });
      const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Went well' },
      });
      const named = await pat.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Said with my name', parent: cluster.id },
      });

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, id, fay.token!);
      // Authors shown: the facilitator's screen names them.
      await shown(page, `[data-card-id="${named.id}"] .by`, 'Pat');
      expect(await page.isVisible('#private-notice')).toBe(false);
      expect(await page.isVisible('#anonymous-notice')).toBe(false);

      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: write.id } });
      await shown(page, '#private-notice', 'Ideas stay with their authors until the facilitator reveals them');
      await shown(page, '#anonymous-notice', 'Ideas are shown without their authors’ names');
      // Facilitators see every card, and this one's author too (REST gives them Pat's id), but the wall does not say it.
      const unnamed = await pat.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Said without', parent: cluster.id },
      });
      const asFay = await fay.get('/v1/workshops/{workshop_id}/cards/{id}', {
        params: { path: { workshop_id: id, id: unnamed.id } },
      });
      expect(asFay).toMatchObject({ user_id: unnamed.user_id, author_visibility: 'hidden_from_participants' });
      expect(asFay.user_id).not.toBeNull();
      // While the step is private, Pat's cards stand blank on the wall (the next case).
      await page.locator(`[data-card-id="${unnamed.id}"].private`).waitFor({ timeout: SHOWS_WITHIN_MS });

      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: open.id } });
      await page.locator('#private-notice').waitFor({ state: 'hidden', timeout: SHOWS_WITHIN_MS });
      expect(await page.isVisible('#anonymous-notice')).toBe(false);
      // Written while hidden, it stays so once shown; the card written before still names Pat.
      await shown(page, `[data-card-id="${unnamed.id}"] .title`, 'Said without');
      expect(await page.locator(`[data-card-id="${unnamed.id}"] .by`).count()).toBe(0);
      expect(await page.textContent(`[data-card-id="${named.id}"] .by`)).toBe('Pat');
      expect(problems.errors).toEqual([]);
    });

    it("keeps participants' ideas off the wall while a step is private, each in a blank place, and shows them at the reveal", async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat]);
      const write = await fay.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop,
        body: { name: 'Write alone', prefs: { cards_visible: 'own' } },
      });
      const discuss = await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Discuss' } });
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: write.id } });
      const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Went well' },
      });
      const faysIdea = await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Kept the timebox', parent: cluster.id },
      });
      const first = await pat.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Pairing on the release', content: 'Every Friday afternoon', parent: cluster.id },
      });
      const secrets = ['Pairing on the release', 'Every Friday afternoon', 'Fewer status meetings'];

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, id, fay.token!);
      await shown(page, '#private-notice', 'Ideas stay with their authors until the facilitator reveals them');
      // The facilitators' cards show (once the member list says whose they are); Pat's is counted.
      await shown(page, `[data-card-id="${faysIdea.id}"] .title`, 'Kept the timebox');
      await shown(page, `[data-card-id="${cluster.id}"] .title`, 'Went well');
      await shown(page, '#private-count', '1 idea written privately');
      // In its place under the cluster, with nothing of it on the page.
      const blank = page.locator(`.stack:has([data-card-id="${cluster.id}"]) [data-card-id="${first.id}"]`);
      expect(await blank.getAttribute('class')).toContain('private');
      expect(await blank.innerHTML()).toBe('');

      // Written while the wall is up: counted, not shown.
      const second = await pat.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Fewer status meetings', parent: cluster.id },
      });
      await shown(page, '#private-count', '2 ideas written privately');
      await page.locator(`[data-card-id="${second.id}"].private`).waitFor({ timeout: SHOWS_WITHIN_MS });
      const html = await page.content();
      for (const secret of secrets) expect(html).not.toContain(secret);
      expect(await page.locator(`[data-card-id="${first.id}"] .by, [data-card-id="${second.id}"] .by`).count()).toBe(0);

      // A participant's screen on the wall shows no more: the facilitator's cards, not Pat's own.
      const { page: pats } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(pats, t.url, id, pat.token!);
      await shown(pats, `[data-card-id="${cluster.id}"] .title`, 'Went well');
      await shown(pats, '#private-count', '2 ideas written privately');
      const patsHtml = await pats.content();
      for (const secret of secrets) expect(patsHtml).not.toContain(secret);

      const revealed = await timeToShow(
        () => fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: discuss.id } }),
        () => shown(page, `[data-card-id="${first.id}"] .title`, 'Pairing on the release', 2_000),
        2_000,
      );
      console.log(`screen: step change to the private ideas shown in ${revealed} ms`);
      await shown(page, `[data-card-id="${first.id}"] .content`, 'Every Friday afternoon');
      await shown(page, `[data-card-id="${second.id}"] .title`, 'Fewer status meetings');
      await shown(page, `[data-card-id="${first.id}"] .by`, 'Pat');
      expect(await page.isVisible('#private-count')).toBe(false);
      expect(await page.locator('.card.private').count()).toBe(0);
      await shown(pats, `[data-card-id="${first.id}"] .title`, 'Pairing on the release');
      expect(problems.errors).toEqual([]);
    });

    it('draws zones as labelled areas holding their clusters, and follows canvas moves', async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat]);
      const linked = await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Linked cluster' },
      });
      const moved = await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Moved cluster' },
      });
      await pat.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Idea in the linked one', parent: linked.id },
      });
      const canvas = await fay.post('/v1/workshops/{workshop_id}/canvas', {
        ...inWorkshop,
        body: {
          name: 'Board',
          background: { cols: 40, rows: 10 },
          zones: [
            { name: 'Now', x: 0, y: 0, cols: 20, rows: 10 },
            { name: 'Later', x: 20, y: 0, cols: 20, rows: 10 },
          ],
        },
      });
      const [now, later] = canvas.zones;
      await fay.put('/v1/workshops/{workshop_id}/canvas/zones/{id}', {
        params: { path: { workshop_id: id, id: now!.id } },
        body: { cluster_id: linked.id },
      });

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, id, pat.token!);
      await shown(page, `[data-zone-id="${now!.id}"] .zone-name`, 'Now');
      await shown(page, `[data-zone-id="${now!.id}"] [data-card-id="${linked.id}"] .title`, 'Linked cluster');
      expect(await page.textContent(`[data-zone-id="${now!.id}"] .idea-card .title`)).toBe('Idea in the linked one');
      expect(await page.textContent(`[data-zone-id="${later!.id}"] .zone-name`)).toBe('Later');
      // Not in any zone: in the plain grid below the board.
      expect(await page.isVisible(`#clusters [data-card-id="${moved.id}"]`)).toBe(true);

      const faysCanvas = openCanvas(fay, id, { WebSocket });
      try {
        await faysCanvas.synced;
        const took = await timeToShow(
          async () => faysCanvas.moveCard(moved.id, { x: 25, y: 4 }),
          () => shown(page, `[data-zone-id="${later!.id}"] [data-card-id="${moved.id}"] .title`, 'Moved cluster'),
        );
        console.log(`screen: a canvas move into a zone shown in ${took} ms`);
      } finally {
        faysCanvas.destroy();
      }
      expect(problems.errors).toEqual([]);
    });

    it("shows people's text as text, never as markup", async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat], '<script>window.pwned = 1</script>');
      const hostile = '<img src=x onerror="window.pwned = 1">';
      await fay
        .post('/v1/workshops/{workshop_id}/steps', {
          ...inWorkshop,
          body: { name: hostile, instructions: '<b>bold?</b>' },
        })
        .then((step) =>
          fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } }),
        );
      const card = await pat.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: hostile },
      });

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, id, pat.token!);
      expect(await page.textContent('#step-name')).toBe(hostile);
      expect(await page.textContent('#step-instructions')).toBe('<b>bold?</b>');
      expect(await page.textContent(`[data-card-id="${card.id}"] .title`)).toBe(hostile);
      expect(
        await page.evaluate(() => ({
          images: document.images.length,
          bold: document.querySelectorAll('b').length,
          pwned: 'pwned' in window,
        })),
      ).toEqual({
        images: 0,
        bold: 0,
        pwned: false,
      });
      expect(problems.errors).toEqual([]);
    });

    it('renders a known state to a screenshot that is not blank, and fits a phone without sideways scrolling', async () => {
      const demo = await seedDemoWorkshop(t.url);
      const { page } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, demo.workshopId, demo.participantToken);
      await shown(page, '#participation', '5 of 6 have voted', PARTICIPATION_WITHIN_MS);
      const dir = mkdtempSync(join(tmpdir(), 'screen-shot-'));
      try {
        const file = join(dir, 'screen.png');
        await page.screenshot({ path: file });
        const image = sharp(file);
        const [metadata, stats] = await Promise.all([image.metadata(), image.stats()]);
        expect({ width: metadata.width, height: metadata.height }).toEqual({ width: 1280, height: 720 });
        // A blank or single-colour page has no spread and no entropy; text, cards and zones have both.
        expect(Math.min(...stats.channels.slice(0, 3).map((channel) => channel.stdev))).toBeGreaterThan(15);
        expect(stats.entropy).toBeGreaterThan(0.5);
        expect(stats.channels[0]!.min).toBeLessThan(60);
        expect(stats.channels[0]!.max).toBeGreaterThan(200);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      expect(await fits()).toBe(true);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await fits()).toBe(true);
      // On a phone the zones stack in one column, each as wide as the screen.
      const widths = await page.$$eval('.zone', (zones) => zones.map((zone) => zone.getBoundingClientRect().width));
      expect(widths.length).toBe(3);
      for (const width of widths) expect(width).toBeGreaterThan(300);
    });
  });

  describe('inviting people', () => {
    const publicUrl = 'https://workshops.example.test';
    const t = useServer({ publicUrl });

    it("shows the join address, a QR code of the workshop's join link, and the code, while the workshop runs; a participant's screen shows none", async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat], 'Invite');
      const found = await fay.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
      // The code's digits, however the server groups them.
      const code = found.access_code.replace(/\D/g, '');
      expect(found.join_url).toMatch(new RegExp(`^${publicUrl}/join#key=`));

      const res = await fetch(`${t.url}/screen/${id}`);
      // Handed over in a <meta>, not an inline script: the policy stays as strict as it was.
      expect(await res.text()).toContain(`<meta name="public-url" content="${publicUrl}" />`);
      expect(res.headers.get('content-security-policy')).toContain("img-src 'self';");

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, id, fay.token!);
      await shown(page, '#invite-code', `${code.slice(0, 3)}-${code.slice(3, 6)}-${code.slice(6)}`);
      expect(await page.textContent('#invite-address')).toBe('workshops.example.test/join');
      // The QR code, photographed as the room's phones see it, reads as the join link: no wrong codes typed at the venue lock it out.
      const photo = await page.locator('#invite-qr svg').screenshot();
      const { data, info } = await sharp(photo).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect(
        jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height)?.data,
      ).toBe(found.join_url);
      // Drawn as SVG elements: no image, no data: URL.
      expect(
        await page.evaluate(() => ({
          images: document.images.length,
          svgs: document.querySelectorAll('#invite-qr svg path').length,
        })),
      ).toEqual({ images: 0, svgs: 1 });

      // Archived, nobody may join: the invitation goes; running again, it comes back. (Live changes
      // reach a screen within a second in the tests that time them; here a loaded machine gets 3 s.)
      await timeToShow(
        () => fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { state: 'archived' } }),
        () => page.locator('#invite').waitFor({ state: 'hidden', timeout: 3_000 }),
        3_000,
      );
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { state: 'running' } });
      await shown(page, '#invite-code', /^\d{3}-\d{3}-\d{3}$/);
      // Closed to guests, the phone page cannot let anyone in: the invitation goes until it opens again.
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { allow_guests: false } });
      await page.locator('#invite').waitFor({ state: 'hidden', timeout: SHOWS_WITHIN_MS });
      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { allow_guests: true } });
      await page.locator('#invite').waitFor({ state: 'visible', timeout: SHOWS_WITHIN_MS });

      // The code is the facilitators' to read: a participant's screen has no invitation.
      const { page: participants } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(participants, t.url, id, pat.token!);
      await quietFor(500, "the access code's 403 reaching the participant's screen");
      expect(await participants.isVisible('#invite')).toBe(false);
      expect(await participants.locator('#invite-code').textContent()).toBe('');
      expect(problems.errors).toEqual([]);
    });
  });

  describe('in the lobby, before the first step', () => {
    const t = useServer({ publicUrl: 'https://workshops.example.test' });

    it('shows the invitation large in the middle, readable and scannable from the back, and puts it back in its corner when the step starts', async () => {
      const fay = (await sdkUser(t, 'Fay')).api;
      const pat = (await sdkUser(t, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat], 'Lobby');
      const step = await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Warm-up' } });
      await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Prepared' },
      });
      const found = await fay.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
      const code = found.access_code.replace(/\D/g, '');

      const { page, problems } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, t.url, id, fay.token!);
      await shown(page, '#step-name', 'The workshop has not started yet');
      await shown(page, '#lobby #invite-code', `${code.slice(0, 3)}-${code.slice(3, 6)}-${code.slice(6)}`);
      expect(await page.textContent('#lobby #invite-address')).toBe('workshops.example.test/join');
      const large = (await page.locator('#invite-qr svg').boundingBox())!;
      // At least half the screen's height: scanned from the back of the room.
      expect(large.height).toBeGreaterThanOrEqual(360);
      const codeHeight = (await page.locator('#invite-code').boundingBox())!.height;
      const photo = await page.locator('#invite-qr svg').screenshot();
      const { data, info } = await sharp(photo).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect(
        jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height)?.data,
      ).toBe(found.join_url);
      // The board waits for the first step.
      expect(await page.isVisible('#clusters .card')).toBe(false);
      await expectAccessible(page, 'the screen in the lobby');
      // On a phone the invitation stacks, with no sideways scrolling.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth)).toBe(false);
      await page.setViewportSize({ width: 1280, height: 720 });

      // A participant's screen in the lobby says so, with no invitation (the code is the facilitators').
      const { page: participants } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(participants, t.url, id, pat.token!);
      await shown(participants, '#step-name', 'The workshop has not started yet');
      await quietFor(500, "the access code's 403 reaching the participant's screen");
      expect(await participants.isVisible('#invite')).toBe(false);

      await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });
      await shown(page, '#step-name', 'Warm-up');
      await shown(page, '#meta #invite-code', `${code.slice(0, 3)}-${code.slice(3, 6)}-${code.slice(6)}`);
      expect(await page.isVisible('#lobby')).toBe(false);
      expect((await page.locator('#invite-qr svg').boundingBox())!.height).toBeLessThan(large.height / 2);
      expect((await page.locator('#invite-code').boundingBox())!.height).toBeLessThan(codeHeight);
      await shown(page, '#clusters .card .title', 'Prepared');
      expect(problems.errors).toEqual([]);
    });
  });

  describe('across a server restart', () => {
    const dir = mkdtempSync(join(tmpdir(), 'screen-restart-'));
    const running: ServerProcess[] = [];
    afterAll(async () => {
      for (const run of running) if (run.child.exitCode === null) run.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('shows a calm reconnecting state while the server is down and recovers without reloading the page', async () => {
      const port = await freePort();
      const env = {
        PORT: String(port),
        DATABASE_PATH: join(dir, 'w.db'),
        FILES_DIR: join(dir, 'files'),
        LOG_REQUESTS: '0',
      };
      const start = async () => {
        const run = startProcess(serverCommand(), env);
        running.push(run);
        await listeningPort(run);
        return run;
      };
      const base = `http://127.0.0.1:${port}`;
      let server = await start();

      const fay = (await sdkUser({ url: base }, 'Fay')).api;
      const pat = (await sdkUser({ url: base }, 'Pat')).api;
      const { id, inWorkshop } = await sdkWorkshop(fay, [pat], 'Restart');
      await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Before the restart' },
      });

      const { page } = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await openScreen(page, base, id, pat.token!);
      await page.evaluate(() => Object.assign(window, { screenMarker: 'first load' }));
      const loadedAt = await page.evaluate(() => performance.timeOrigin);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      await page.locator('body[data-status="reconnecting"]').waitFor({ timeout: 5_000 });
      expect(await page.textContent('#connection')).toBe('Reconnecting…');
      expect(await page.isVisible('#connection')).toBe(true);
      // The last state stays on screen (faded), rather than an error page.
      expect(await page.isVisible('text=Before the restart')).toBe(true);

      server = await start();
      const restarted = performance.now();
      const card = await fay.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'After the restart' },
      });
      await shown(page, `[data-card-id="${card.id}"] .title`, 'After the restart', 15_000);
      await page.locator('body[data-status="live"]').waitFor({ timeout: 15_000 });
      console.log(`screen: live again ${Math.round(performance.now() - restarted)} ms after the server was back`);
      expect(await page.isVisible('#connection')).toBe(false);
      expect(
        await page.evaluate(() => [
          (window as unknown as { screenMarker?: string }).screenMarker,
          performance.timeOrigin,
        ]),
      ).toEqual(['first load', loadedAt]);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }, 45_000);
  });
});

/** A port free now, for a server that must come back on the same one. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
