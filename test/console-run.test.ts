import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Step } from '../client-sdk/src/index';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useLiveWorkshops, useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { sdkUser, sdkWorkshop } from './helpers/sdk';
import { until } from './helpers/wait';

/** The clock's text for `seconds` left under an hour (rounded up, as the pages show it). */
const clockOf = (seconds: number) => {
  const whole = Math.ceil(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};

/*
 * The console's Run tab (docs/pages.md#the-console) in a real chromium: the agenda stepped through
 * with participants' live states following, the timer, the reveal of a private step, the forced
 * view, participation, presence, the access code and the screen for the projector; at a laptop's
 * and at a phone's size.
 *
 * Among the slowest files (about 20 s): the Run tab in chromium with participants' live states
 * beside it; the timer is watched counting down in real seconds, and two facilitators' browsers
 * follow each other.
 */

describe.skipIf(!browserAvailable)('the console: running a workshop', () => {
  const t = useServer();
  const browser = useBrowser();
  const live = useLiveWorkshops();

  /** Fay facilitates with three steps (the first private), Pat and Quinn take part; none is current. */
  async function scene() {
    const fay = await sdkUser(t, 'Fay');
    const pat = await sdkUser(t, 'Pat');
    const quinn = await sdkUser(t, 'Quinn');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [pat.api, quinn.api], 'Run day');
    const steps: Step[] = [];
    for (const body of [
      {
        name: 'Write alone',
        instructions: 'One idea per card.\nTake five minutes.',
        prefs: { cards_visible: 'own' as const },
      },
      { name: 'Vote', prefs: { allow_vote_on_ideas: true } },
      { name: 'Wrap up' },
    ])
      steps.push(await fay.api.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body }));
    const workshop = () => fay.api.get('/v1/workshops/{id}', { params: { path: { id } } });
    return { fay, pat, quinn, id, inWorkshop, steps, workshop };
  }

  async function runTab(page: Page, token: string, id: string) {
    await openConsoleWithToken(page, t.url, token, `/workshops/${id}?tab=run`);
    await page.getByRole('heading', { name: 'Step', exact: true }).waitFor();
  }

  /** From now on, the page's writes as `METHOD /path`, in the order sent. */
  const writesOf = (page: Page) => {
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') sent.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    return () => sent;
  };

  /** Whether a button is marked unavailable (it keeps the focus, so it is not disabled). */
  const unavailable = async (page: Page, name: string) =>
    (await page.getByRole('button', { name }).getAttribute('aria-disabled')) === 'true';

  it("steps through the agenda from the keyboard, and a participant's live state follows each step", async () => {
    const { fay, pat, id, steps, workshop } = await scene();
    const pats = await live(pat.api, id);
    const { page, problems } = await browser.newPage(LAPTOP);
    await runTab(page, fay.api.token!, id);
    await shown(page, '.run-no-step', /No step is current/);
    expect(await unavailable(page, 'Previous step')).toBe(true);
    await expectAccessible(page, 'the run tab, before the first step');

    // Enter on the same button, again and again: the focus stays on it through each step change.
    await page.getByRole('button', { name: 'First step' }).focus();
    await page.keyboard.press('Enter');
    await shown(page, '.run-step-name', 'Step 1 of 3: Write alone');
    await shown(page, '.run-instructions', 'One idea per card.\nTake five minutes.');
    await until(() => pats.state.step?.id === steps[0]!.id, 'the participant on step 1');
    await expect.poll(() => unavailable(page, 'Next step')).toBe(false);
    await page.keyboard.press('Enter');
    await shown(page, '.run-step-name', 'Step 2 of 3: Vote');
    await until(() => pats.state.step?.id === steps[1]!.id, 'the participant on step 2');
    await expect.poll(() => unavailable(page, 'Next step')).toBe(false);
    await page.keyboard.press('Enter');
    await shown(page, '.run-step-name', 'Step 3 of 3: Wrap up');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Next step →');
    // At the end, Next step stays focused and sends nothing: of it and the Previous step after
    // it, only Previous writes.
    expect(await unavailable(page, 'Next step')).toBe(true);
    const writes = writesOf(page);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Previous step' }).click();
    await shown(page, '.run-step-name', 'Step 2 of 3: Vote');
    expect(writes()).toEqual([`PUT /v1/workshops/${id}`]);
    await page.getByRole('button', { name: 'Previous step' }).click();
    await shown(page, '.run-step-name', 'Step 1 of 3: Write alone');
    await until(() => pats.state.step?.id === steps[0]!.id, 'the participant back on step 1');

    // Any step from the list, and none again.
    await page.getByText('All steps').click();
    await page.getByRole('button', { name: 'Go to step 3. Wrap up' }).click();
    await shown(page, '.run-step-name', 'Step 3 of 3: Wrap up');
    expect(await unavailable(page, 'Next step')).toBe(true);
    await expect.poll(async () => (await workshop()).current_step_id).toBe(steps[2]!.id);
    await until(() => pats.state.step?.id === steps[2]!.id, 'the participant on step 3');
    await expectAccessible(page, 'the run tab, the step list open');
    await page.getByRole('button', { name: 'Leave no step current' }).click();
    await shown(page, '.run-no-step', /No step is current/);
    await until(() => pats.state.step === null, 'the participant with no step');
    expect(problems.errors).toEqual([]);
  });

  it("shows two facilitators in two browsers each other's step change at once", async () => {
    const { fay, id, inWorkshop } = await scene();
    const gil = await sdkUser(t, 'Gil');
    const { access_code } = await fay.api.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
    await gil.api.post('/v1/workshops/join', { body: { access_code } });
    const roles = await fay.api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop);
    const membership = roles.find((role) => role.user_id === gil.id)!;
    await fay.api.put('/v1/workshops/{workshop_id}/user_roles/{id}', {
      params: { path: { workshop_id: id, id: membership.id } },
      body: { role: 'facilitator' },
    });
    const first = await browser.newPage(LAPTOP);
    const second = await browser.newPage(LAPTOP);
    await runTab(first.page, fay.api.token!, id);
    await runTab(second.page, gil.api.token!, id);

    await first.page.getByRole('button', { name: 'First step' }).click();
    await shown(second.page, '.run-step-name', 'Step 1 of 3: Write alone');
    await second.page.getByRole('button', { name: 'Next step' }).click();
    await shown(first.page, '.run-step-name', 'Step 2 of 3: Vote');
    // The timer and the view too: what one starts, the other sees.
    await second.page.getByRole('button', { name: 'Start' }).click();
    await shown(first.page, '.run-clock-state', 'Running');
    await first.page.getByLabel('Participants follow this screen').check();
    await expect.poll(() => second.page.getByLabel('Participants follow this screen').isChecked()).toBe(true);
  });

  it('stops the timer when the step changes, unless the facilitator keeps it running', async () => {
    const { fay, id, inWorkshop, steps } = await scene();
    const timer = () => fay.api.get('/v1/workshops/{workshop_id}/timer', inWorkshop);
    await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: steps[0]!.id } });
    const { page, problems } = await browser.newPage(LAPTOP);
    await runTab(page, fay.api.token!, id);
    await page.getByRole('button', { name: 'Start' }).click();
    await shown(page, '.run-clock-state', 'Running');

    await page.getByRole('button', { name: 'Next step' }).click();
    await shown(page, '.run-step-name', 'Step 2 of 3: Vote');
    await shown(page, '.run-clock-state', 'Not started');
    expect((await timer()).state).toBe('stopped');

    await page.getByRole('button', { name: 'Start' }).click();
    await shown(page, '.run-clock-state', 'Running');
    await page.getByLabel('Keep the timer running when the step changes').check();
    await page.getByRole('button', { name: 'Next step' }).click();
    await shown(page, '.run-step-name', 'Step 3 of 3: Wrap up');
    expect((await timer()).state).toBe('running');
    await expect.poll(() => page.locator('.run-clock-state').textContent()).toBe('Running');
    expect(problems.errors).toEqual([]);
  });

  it('starts, pauses, adds a minute to and resets the timer, counting down live', async () => {
    const { fay, id, inWorkshop } = await scene();
    const timer = () => fay.api.get('/v1/workshops/{workshop_id}/timer', inWorkshop);
    const { page, problems } = await browser.newPage(LAPTOP);
    await runTab(page, fay.api.token!, id);
    const clock = page.locator('.run-clock-time');
    await shown(page, '.run-clock-state', 'Not started');
    expect(await page.getByRole('button', { name: 'Pause' }).isDisabled()).toBe(true);

    await page.getByLabel('Minutes').fill('2');
    await page.getByRole('button', { name: 'Start' }).click();
    await shown(page, '.run-clock-state', 'Running');
    expect((await timer()).duration_s).toBe(120);
    // It counts down: 2:00 (or 1:59) at first, then a lower second.
    const started = await clock.textContent();
    expect(started).toMatch(/^(2:00|1:59)$/);
    await shown(page, '.run-clock-time', /^1:5[0-8]$/, 4_000);

    await page.getByRole('button', { name: 'Pause' }).click();
    await shown(page, '.run-clock-state', 'Paused');
    const paused = await timer();
    expect(paused.state).toBe('paused');
    // Paused, it shows what the server kept, to the second.
    await shown(page, '.run-clock-time', clockOf(paused.remaining_s));

    await page.getByRole('button', { name: 'Add a minute' }).click();
    await expect.poll(async () => (await timer()).remaining_s).toBeCloseTo(paused.remaining_s + 60, 0);
    await shown(page, '.run-clock-time', clockOf(paused.remaining_s + 60));
    await page.getByRole('button', { name: 'Resume' }).click();
    await shown(page, '.run-clock-state', 'Running');
    expect((await timer()).state).toBe('running');

    await page.getByRole('button', { name: 'Reset' }).click();
    await shown(page, '.run-clock-state', 'Not started');
    await shown(page, '.run-clock-time', '0:00');
    expect((await timer()).state).toBe('stopped');
    await expectAccessible(page, 'the run tab, the timer reset');
    expect(problems.errors).toEqual([]);
  });

  it("reveals a private step's ideas: one participant's hidden idea reaches another", async () => {
    const { fay, pat, quinn, id, inWorkshop, steps } = await scene();
    await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: steps[0]!.id } });
    const cluster = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Ideas' },
    });
    const quinns = await live(quinn.api, id);
    const idea = await pat.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'Four-day week', parent: cluster.id },
    });
    const { page, problems } = await browser.newPage(LAPTOP);
    await runTab(page, fay.api.token!, id);
    await shown(page, '.run-privacy', /Ideas are private now/);
    await expectAccessible(page, 'the run tab, a private step');
    expect(quinns.state.cards.map((card) => card.id)).not.toContain(idea.id);
    const quinnsList = await quinn.api.get('/v1/workshops/{workshop_id}/cards', inWorkshop);
    expect(quinnsList.map((card) => card.id)).not.toContain(idea.id);

    await page.getByRole('button', { name: 'Reveal everyone’s ideas' }).click();
    await shown(page, '.run-privacy', 'Ideas are visible to everyone.');
    await until(() => quinns.state.cards.some((card) => card.id === idea.id), "Pat's idea in Quinn's live state");
    const after = await quinn.api.get('/v1/workshops/{workshop_id}/cards', inWorkshop);
    expect(after.find((card) => card.id === idea.id)?.title).toBe('Four-day week');
    expect(problems.errors).toEqual([]);
  });

  it('spotlights a card, chooses the clusters and the order, and lets participants follow', async () => {
    const { fay, id, inWorkshop, workshop } = await scene();
    const criterion = await fay.api.post('/v1/workshops/{workshop_id}/criteria', {
      ...inWorkshop,
      body: { title: 'Impact', scale: 4 },
    });
    const [wins, worries] = [
      await fay.api.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Wins' },
      }),
      await fay.api.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'cluster', title: 'Worries', color: 'red' },
      }),
    ];
    const { page, problems } = await browser.newPage(LAPTOP);
    await runTab(page, fay.api.token!, id);
    await shown(page, '.run-lit', 'No card is in the spotlight.');
    // A card written after the page opened is offered too.
    const idea = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'Shipped on time', parent: wins!.id },
    });
    await page.getByLabel('Find a card to spotlight').fill('shipped');
    await page.getByRole('button', { name: 'Spotlight Shipped on time' }).click();
    await shown(page, '.run-lit', 'In the spotlight: “Shipped on time”');
    await expect.poll(async () => (await workshop()).view.card).toBe(idea.id);

    await page.getByLabel('Chosen clusters').check();
    await page.locator('.run-view').getByLabel('Worries').check();
    await expect
      .poll(async () => (await workshop()).view)
      .toMatchObject({
        show_clusters: 'multi',
        show_cluster_ids: [worries!.id],
      });
    await expectAccessible(page, 'the run tab, clusters chosen');
    await page.getByLabel('No clusters, the ideas alone').check();
    await expect.poll(async () => (await workshop()).view.show_clusters).toBe('none');

    await page.getByLabel('Order of the ideas').selectOption({ label: 'By votes' });
    await expect.poll(async () => (await workshop()).view.sort).toBe('score');
    await page.getByLabel('Order of the ideas').selectOption({ label: 'By average “Impact”' });
    await expect
      .poll(async () => (await workshop()).view)
      .toMatchObject({
        sort: 'criterium_average',
        sort_criterium_id: criterion.id,
      });

    await page.getByLabel('Participants follow this screen').check();
    await expect.poll(async () => (await workshop()).force_sync).toBe(true);
    await page.getByRole('button', { name: 'Clear the spotlight' }).click();
    await shown(page, '.run-lit', 'No card is in the spotlight.');
    await expect.poll(async () => (await workshop()).view.card).toBeNull();
    expect(problems.errors).toEqual([]);
  });

  it('spotlights, votes on and rates a card from the live board beside the steps, within the budget', async () => {
    const { fay, pat, id, inWorkshop, workshop, steps } = await scene();
    await fay.api.put('/v1/workshops/{id}', {
      params: { path: { id } },
      body: {
        current_step_id: steps[1]!.id,
        vote_limit: { positive: 3, negative: 0, max_positive: 2, max_negative: 1 },
      },
    });
    const criterion = await fay.api.post('/v1/workshops/{workshop_id}/criteria', {
      ...inWorkshop,
      body: { title: 'Effort', scale: 4 },
    });
    const cluster = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Topics' },
    });
    const [lunch, demos] = [
      await pat.api.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Lunch together', parent: cluster.id },
      }),
      await pat.api.post('/v1/workshops/{workshop_id}/cards', {
        ...inWorkshop,
        body: { type: 'idea', title: 'Demo Fridays', parent: cluster.id },
      }),
    ];
    // A point Fay gave before the page opened counts against her budget.
    await fay.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
      params: { path: { workshop_id: id, card_id: demos!.id } },
      body: { value: 1 },
    });
    const { page, problems } = await browser.newPage(LAPTOP);
    await runTab(page, fay.api.token!, id);
    const board = page.locator('.run-board');

    // From the card on the board (compact: its buttons show when it is pointed at): spotlit, and marked so.
    const lunchCard = board.locator('.idea', { hasText: 'Lunch together' });
    await lunchCard.hover();
    await lunchCard.getByRole('button', { name: 'Spotlight', exact: true }).click();
    await expect.poll(async () => (await workshop()).view.card).toBe(lunch!.id);
    await shown(page, '.run-lit', 'In the spotlight: “Lunch together”');
    await shown(page, '.run-board .idea.lit .meta', /In the spotlight/);

    // Its detail: points given within the budget, one at a time, and a rating.
    await board.getByRole('button', { name: 'Lunch together', exact: true }).click();
    const detail = page.getByRole('dialog', { name: 'Lunch together' });
    await shown(page, '.your-votes', /Your points on this card: 0\. Left to give in the workshop: 2\./);
    await detail.getByRole('button', { name: 'Give this card a point' }).click();
    await shown(page, '.your-votes', /Your points on this card: 1\. Left to give in the workshop: 1\./);
    await detail.getByRole('button', { name: 'Give this card a point' }).click();
    await shown(page, '.your-votes', /Your points on this card: 2\. Left to give in the workshop: 0\./);
    const give = detail.getByRole('button', { name: 'Give this card a point' });
    expect(await give.getAttribute('aria-disabled')).toBe('true');
    await shown(page, '.your-votes .hint', 'No points left: you have spent them all.');
    const fays = async () =>
      (
        await fay.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
          params: { path: { workshop_id: id, card_id: lunch!.id } },
        })
      ).filter((vote) => vote.user_id === fay.id);
    expect((await fays()).map((vote) => vote.value)).toEqual([1, 1]);
    // A press that would overspend sends nothing (forced: the button is marked unavailable); of it
    // and the − after it, only − writes.
    const writes = writesOf(page);
    await give.click({ force: true });
    await detail.getByRole('button', { name: 'Take a point off this card' }).click();
    await shown(page, '.your-votes', /Your points on this card: 1\. Left to give in the workshop: 1\./);
    expect(writes()).toEqual([expect.stringMatching(/^DELETE \/v1\/workshops\/.*\/votes\//)]);
    expect(await fays()).toHaveLength(1);

    await detail.getByLabel('Your rating: Effort').selectOption('3');
    await expect
      .poll(async () =>
        (
          await fay.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
            params: { path: { workshop_id: id, card_id: lunch!.id }, query: { criterium_id: criterion.id } },
          })
        ).map((rating) => [rating.user_id, rating.value]),
      )
      .toEqual([[fay.id, 3]]);
    await expectAccessible(page, 'the run tab, a card open to vote and rate');

    // The detail puts the spotlight out again.
    await detail.getByRole('button', { name: 'Spotlight', pressed: true }).click();
    await expect.poll(async () => (await workshop()).view.card).toBeNull();
    expect(problems.errors).toEqual([]);
  });

  it('works at a phone’s size: steps, timer and spotlight at a thumb, nothing wider than the screen', async () => {
    const { fay, id, inWorkshop, steps, workshop } = await scene();
    const cluster = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Topics' },
    });
    const { page, problems } = await browser.newPage(PHONE);
    await runTab(page, fay.api.token!, id);
    await page.getByRole('button', { name: 'First step' }).tap();
    await shown(page, '.run-step-name', 'Step 1 of 3: Write alone');
    await page.getByRole('button', { name: 'Next step' }).tap();
    await shown(page, '.run-step-name', 'Step 2 of 3: Vote');
    await expect.poll(async () => (await workshop()).current_step_id).toBe(steps[1]!.id);
    await page.getByRole('button', { name: 'Start' }).tap();
    await shown(page, '.run-clock-state', 'Running');
    await page.getByRole('button', { name: 'Add a minute' }).tap();
    await shown(page, '.run-clock-time', /^5:5\d$|^6:00$/);
    await page.getByLabel('Find a card to spotlight').fill(`#${cluster.short_id}`);
    await page.getByRole('button', { name: 'Spotlight Topics' }).tap();
    await shown(page, '.run-lit', 'In the spotlight: “Topics”');

    const sizes = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      // The controls at a thumb's height; the board beside them is the board's own (console-board tests).
      smallest: Math.min(
        ...Array.from(document.querySelectorAll('.run-main button, .run-side button'))
          .filter((button) => button.getClientRects().length > 0)
          .map((button) => button.getBoundingClientRect().height),
      ),
    }));
    expect(sizes.page).toBeLessThanOrEqual(390);
    expect(sizes.smallest).toBeGreaterThanOrEqual(44);
    await expectAccessible(page, 'the run tab on a phone');
    expect(problems.errors).toEqual([]);
  });

  it('shows participation and presence live, the code with its QR code and link, and opens the screen', async () => {
    const { fay, pat, id, inWorkshop, steps } = await scene();
    await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: steps[1]!.id } });
    const cluster = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Topics' },
    });
    const idea = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'Lunch', parent: cluster.id },
    });
    const { page, problems } = await browser.newPage(LAPTOP);
    await runTab(page, fay.api.token!, id);
    await shown(page, '.run-participation', /2 participants in the workshop.*0 of 2 have voted/);
    await shown(page, '.run-presence-count', '1 person connected');

    await live(pat.api, id);
    await shown(page, '.run-presence-count', '2 people connected');
    await shown(page, '.run-presence', /Pat/);
    await pat.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
      params: { path: { workshop_id: id, card_id: idea.id } },
      body: { value: 1 },
    });
    await shown(page, '.run-participation', /1 of 2 have voted/);

    const { access_code, join_url } = await fay.api.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
    await shown(page, '.run-code', access_code.replace(/(\d{3})(?=\d)/g, '$1-'));
    await shown(page, '.run-join-link', join_url);
    await page.getByRole('img', { name: `QR code of the join link ${join_url}` }).waitFor();
    await expectAccessible(page, 'the run tab, people in the room');

    // The screen opens in a new tab, signed in with the token the console lends it, never in its address.
    const [screen] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('button', { name: 'Open the screen for the projector' }).click(),
    ]);
    await screen!.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect(new URL(screen!.url()).pathname).toBe(`/screen/${id}`);
    expect(new URL(screen!.url()).hash).toBe('');
    expect(problems.errors).toEqual([]);
  });
});
