import { gzipSync } from 'node:zlib';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Step, WorkshopClient } from '../client-sdk/src/index';
import { browserAvailable, shown, SHOWS_WITHIN_MS, timeToShow, useBrowser, type TestBrowser } from './helpers/browser';
import { useServer, useLiveWorkshops } from './helpers/cast';
import { expectAccessible } from './helpers/console';
import { joinAsGuest, workshopWithCode } from './helpers/participant';
import { sdkClusterWithIdea, sdkUser } from './helpers/sdk';
import { until } from './helpers/wait';

/*
 * The participant page (`/join`, `/w/<workshop_id>`, docs/pages.md#participant-page) in a real chromium at a phone's
 * size: guests join from the screen's QR address, write as the current step allows, follow the
 * facilitator live, and lose nothing (and double nothing) through a network cut or a reload.
 *
 * Among the slowest files (35 to 50 s): fifteen journeys through the page in chromium at a
 * phone's size, each from joining onwards; ten phones joining and writing at once is some 10 s of
 * it, and the network cuts and reloads wait for the page to notice and come back.
 */

const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/** The goal the issue sets for the page's script, gzipped. */
const SCRIPT_BUDGET = 60 * 1024;
/** A reveal is a step change and a load of the cards over REST. */
const REVEAL_WITHIN_MS = 3_000;

/** The guest's token as the page keeps it, and who it is. */
async function guestOf(page: Page, baseUrl: string, workshopId: string): Promise<{ token: string; id: string }> {
  const token = (await page.evaluate((id) => localStorage.getItem(`workshop-participant:${id}`), workshopId))!;
  const me = (await (
    await fetch(`${baseUrl}/v1/user/me`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { id: string };
  return { token, id: me.id };
}

/** A card on the page's list (not its copy in the spotlight). */
const onList = (page: Page, cardId: string) => page.locator(`#cards [data-card-id="${cardId}"]`);

async function votesOf(fay: WorkshopClient, workshopId: string, cardId: string, userId: string): Promise<number[]> {
  const votes = await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
    params: { path: { workshop_id: workshopId, card_id: cardId } },
  });
  return votes.filter((vote) => vote.user_id === userId).map((vote) => vote.value);
}

async function cardsTitled(fay: WorkshopClient, workshopId: string, title: string): Promise<number> {
  const cards = await fay.get('/v1/workshops/{workshop_id}/cards', { params: { path: { workshop_id: workshopId } } });
  return cards.filter((card) => card.title === title).length;
}

async function phone(browser: TestBrowser) {
  return browser.newPage(PHONE);
}

/**
 * Fay's workshop with these steps, the first one current (none without steps), and a cluster
 * `Topics` holding the idea `ideaTitle`; `toStep` makes another step current.
 */
async function workshopWithAnIdea(
  t: { url: string },
  ideaTitle: string,
  steps: Array<{ name: string; prefs?: Partial<Step['prefs']> }> = [],
) {
  const { fay, id, inWorkshop, code } = await workshopWithCode(t);
  const made: Step[] = [];
  for (const body of steps) made.push(await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body }));
  const toStep = (step: Step) =>
    fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });
  if (made[0]) await toStep(made[0]);
  const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'cluster', title: 'Topics' },
  });
  const idea = await fay.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'idea', title: ideaTitle, parent: cluster.id },
  });
  return { fay, id, inWorkshop, code, steps: made, toStep, cluster, idea };
}

/** Gus, a guest who joined with `code` on a phone, and who he is. */
async function guestOnPhone(browser: TestBrowser, t: { url: string }, code: string, workshopId: string) {
  const { page, problems } = await phone(browser);
  await joinAsGuest(page, t.url, code, 'Gus');
  return { page, problems, guest: await guestOf(page, t.url, workshopId) };
}

/** A guest on a phone, in a workshop with a cluster `Topics` holding the idea `Vote on me`, their votes counted. */
async function guestWithAnIdea(browser: TestBrowser, t: { url: string }) {
  const { fay, id, code, idea } = await workshopWithAnIdea(t, 'Vote on me');
  const { page, problems, guest } = await guestOnPhone(browser, t, code, id);
  await shown(page, '#points', /Vote as you like/);
  return { fay, id, idea, page, problems, guest };
}

describe.skipIf(!browserAvailable)('the participant page', () => {
  const browser = useBrowser();
  const t = useServer();
  const openLive = useLiveWorkshops();

  it('is served with the strict policy, with a script under its budget', async () => {
    for (const path of ['/join', '/w/some-workshop']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(200);
      const policy = res.headers.get('content-security-policy')!;
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toContain('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect((await fetch(`${t.url}/w/not%20an%20id`)).status).toBe(404);
    const html = await (await fetch(`${t.url}/join`)).text();
    const script = /src="(\/participant\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    const stylesheet = /href="(\/participant\/assets\/participant-[A-Z0-9]+\.css)"/.exec(html)?.[1];
    expect(script && stylesheet).toBeTruthy();
    const bundle = await fetch(`${t.url}${script}`);
    expect(bundle.headers.get('content-encoding')).toBe('gzip');
    expect(bundle.headers.get('cache-control')).toContain('immutable');
    const code = new Uint8Array(await bundle.arrayBuffer());
    // The page's words come with it: its language's messages file, preloaded (docs/i18n.md#in-the-pages).
    const messagesFile = /<link rel="modulepreload" href="(\/participant\/assets\/messages-en-[A-Z0-9]+\.js)"/.exec(
      html,
    )?.[1];
    expect(messagesFile).toBeTruthy();
    const messages = new Uint8Array(await (await fetch(`${t.url}${messagesFile}`)).arrayBuffer());
    const gzipped = gzipSync(code, { level: 9 }).byteLength;
    const messagesGzipped = gzipSync(messages, { level: 9 }).byteLength;
    console.log(
      `participant page: script ${(code.byteLength / 1024).toFixed(1)} KB minified, ${(gzipped / 1024).toFixed(1)} KB gzipped; ` +
        `English messages ${(messages.byteLength / 1024).toFixed(1)} KB, ${(messagesGzipped / 1024).toFixed(1)} KB gzipped`,
    );
    expect(gzipped + messagesGzipped).toBeLessThan(SCRIPT_BUDGET);
    // The screen's QR library stays out of the phone's script, and so does the ICU parser (its messages come parsed).
    expect(new TextDecoder().decode(code)).not.toContain('Kanji');
    expect(new TextDecoder().decode(code)).not.toContain('EXPECT_ARGUMENT_CLOSING_BRACE');
  });

  it('lets a guest in from the QR address, keeps them in across a reload, and sends them back to /join when the token ends', async () => {
    const { fay, id, inWorkshop, code } = await workshopWithCode(t, 'Guests <b>welcome</b>');
    const step = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: { name: 'Check-in', instructions: 'One word for your mood.' },
    });
    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });

    const { page, problems } = await phone(browser);
    await page.goto(`${t.url}/join#code=${code}`);
    // The code comes filled in from the address, grouped as on the screen; the name field has the focus.
    expect(await page.getByLabel('Access code').inputValue()).toBe(
      `${code.slice(0, 3)}-${code.slice(3, 6)}-${code.slice(6)}`,
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');
    await page.getByRole('button', { name: 'Join' }).click();
    await shown(page, '#join-status', 'Enter your name.');
    const started = performance.now();
    await page.getByLabel('Your name').fill('Gus');
    await page.keyboard.press('Enter');
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    console.log(
      `participant page: from the join form to the live workshop in ${Math.round(performance.now() - started)} ms`,
    );
    expect(page.url()).toBe(`${t.url}/w/${id}`);
    expect(await page.textContent('#workshop-title')).toBe('Guests <b>welcome</b>');
    expect(await page.textContent('#step-name')).toBe('Check-in');
    expect(await page.textContent('#step-instructions')).toBe('One word for your mood.');
    const guest = await guestOf(page, t.url, id);
    const members = await fay.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop);
    expect(members.find((member) => member.user_id === guest.id)).toMatchObject({
      role: 'participant',
      name: 'Gus',
      guest: true,
    });

    await page.reload();
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect(page.url()).toBe(`${t.url}/w/${id}`);
    expect(await page.isVisible('#join')).toBe(false);
    expect(await guestOf(page, t.url, id)).toEqual(guest);
    // Scanning the screen's code again offers the way back in rather than a second guest.
    await page.goto(`${t.url}/join#code=${code}`);
    await page.getByRole('link', { name: 'Continue in “Guests <b>welcome</b>”' }).click();
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect(page.url()).toBe(`${t.url}/w/${id}`);

    // The token ends (here, logged out elsewhere): the server ends the live connection, and the
    // open page sends the person to /join, forgetting the token.
    expect(
      (await fetch(`${t.url}/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${guest.token}` } }))
        .status,
    ).toBe(204);
    const tokenKey = `workshop-participant:${id}`;
    // Followed by a page load: it has the time a load takes on a busy machine.
    await page.waitForURL(`${t.url}/join#session=ended`, { timeout: 5_000 });
    await shown(page, '#join-notice', 'Your session has ended: join again.');
    expect(await page.evaluate((key) => localStorage.getItem(key), tokenKey)).toBeNull();
    // A page loaded with a token that no longer works (the phone waking after the logout) does the same.
    await page.evaluate(([key, token]) => localStorage.setItem(key!, token!), [tokenKey, guest.token]);
    await page.goto(`${t.url}/w/${id}`);
    await page.waitForURL(`${t.url}/join#session=ended`, { timeout: 5_000 });
    await shown(page, '#join-notice', 'Your session has ended: join again.');
    expect(await page.evaluate((key) => localStorage.getItem(key), tokenKey)).toBeNull();

    // A wrong code is refused in words, and the field says which one is wrong.
    await page.getByLabel('Access code').fill('000-000-000');
    await page.getByLabel('Your name').fill('Gus');
    await page.getByRole('button', { name: 'Join' }).click();
    await shown(page, '#join-status', /No running workshop has this code/);
    expect(await page.getAttribute('#code', 'aria-invalid')).toBe('true');
    // A workshop that takes no guests says so.
    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { allow_guests: false } });
    await page.getByLabel('Access code').fill(code);
    await page.getByRole('button', { name: 'Join' }).click();
    await shown(page, '#join-status', 'This workshop does not take guests. Ask the facilitator for an invitation.');
    expect(problems.errors).toEqual([]);
  });

  it('turns a guest into an account that keeps what they wrote, saying why an address or a password is refused', async () => {
    const { fay, id, inWorkshop, code, cluster } = await workshopWithAnIdea(t, 'From Fay');
    const taken = (await fay.get('/v1/user/me')).email!;
    const { page, problems, guest } = await guestOnPhone(browser, t, code, id);
    const gusIdea = await fetch(`${t.url}/v1/workshops/${id}/cards`, {
      method: 'POST',
      headers: { authorization: `Bearer ${guest.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'idea', title: 'Written as a guest', parent: cluster.id }),
    }).then((res) => res.json() as Promise<{ id: string }>);

    await page.getByText('Keep what you wrote: create an account').click();
    expect(await page.getByLabel('Name on the account').inputValue()).toBe('Gus');
    const email = page.getByLabel('E-mail address');
    const password = page.getByLabel('Password');
    const create = page.getByRole('button', { name: 'Create account' });
    // An address with an account already: said in words, on the field it is about; the guest stays a guest.
    await email.fill(taken);
    await password.fill('correct horse battery');
    await create.click();
    await shown(page, '#account-status', 'This address already has an account. Use another one.');
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect(
      (await (await fetch(`${t.url}/v1/user/me`, { headers: { authorization: `Bearer ${guest.token}` } })).json())
        .guest,
    ).toBe(true);
    const mine = `gus-page-${process.pid}@example.test`;
    await email.fill(mine);
    await password.fill('short');
    await create.click();
    await shown(page, '#account-status', 'Passwords have at least 8 characters.');
    expect(await password.getAttribute('aria-invalid')).toBe('true');

    await password.fill('correct horse battery');
    await create.click();
    await shown(
      page,
      '#account-done',
      `You have an account as ${mine}: everything you wrote stays yours. A mail asks you to confirm the address.`,
    );
    expect(await page.isVisible('#account')).toBe(false);
    // The page keeps the account's token: the same person, no longer a guest, and the idea is still theirs.
    const kept = await guestOf(page, t.url, id);
    expect(kept.token).not.toBe(guest.token);
    expect(kept.id).toBe(guest.id);
    const me = await (
      await fetch(`${t.url}/v1/user/me`, { headers: { authorization: `Bearer ${kept.token}` } })
    ).json();
    expect(me).toMatchObject({ id: guest.id, guest: false, email: mine, name: 'Gus' });
    const card = await fay.get('/v1/workshops/{workshop_id}/cards/{id}', {
      params: { path: { workshop_id: id, id: gusIdea.id } },
    });
    expect(card.user_id).toBe(guest.id);
    // Still in after a reload, with nothing more to offer.
    await page.reload();
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect(await page.isVisible('#account')).toBe(false);
    expect(
      (await fay.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop)).find(
        (member) => member.user_id === guest.id,
      ),
    ).toMatchObject({ guest: false, name: 'Gus' });
    expect(problems.errors).toEqual([]);
  });

  it('adds an idea into a chosen cluster, votes until the budget stops it (saying why), rates and comments', async () => {
    const { fay, id, inWorkshop, code } = await workshopWithCode(t);
    await fay.put('/v1/workshops/{id}', {
      params: { path: { id } },
      body: { vote_limit: { positive: 3, max_positive: 2, negative: 0 } },
    });
    const step = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: { name: 'Ideas and votes' },
    });
    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: step.id } });
    const first = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Keep' },
    });
    const second = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Change' },
    });
    const a = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'Idea A', parent: first.id },
    });
    const b = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'Idea B', parent: first.id },
    });
    const impact = await fay.post('/v1/workshops/{workshop_id}/criteria', {
      ...inWorkshop,
      body: { title: 'Impact', scale: 4 },
    });

    const { page, problems } = await phone(browser);
    await joinAsGuest(page, t.url, code, 'Gus');
    const guest = await guestOf(page, t.url, id);

    // An idea, into the second cluster, chosen by its name.
    await page.getByLabel('Cluster', { exact: true }).selectOption({ label: 'Change' });
    await page.getByLabel('Your idea').fill('Shorter stand-ups');
    await page.getByRole('button', { name: 'Add idea' }).click();
    await shown(page, `#cards .stack:has([data-card-id="${second.id}"]) .ideas .title`, 'Shorter stand-ups');
    const cards = await fay.get('/v1/workshops/{workshop_id}/cards', inWorkshop);
    expect(
      cards.filter((card) => card.title === 'Shorter stand-ups').map((card) => [card.parent, card.user_id]),
    ).toEqual([[second.id, guest.id]]);

    // Votes: two on A (the most on one card), then one on B spends the budget of three.
    await shown(page, '#points', '3 of 3 points left to give.');
    const plus = (card: string) => onList(page, card).locator('.plus');
    const minus = (card: string) => onList(page, card).locator('.minus');
    // Nothing to take back yet, and negative votes are off: − says so.
    expect(await minus(a.id).getAttribute('aria-disabled')).toBe('true');
    await plus(a.id).click();
    await plus(a.id).click();
    await shown(page, `#cards [data-card-id="${a.id}"] .mine`, '2');
    expect(await plus(a.id).getAttribute('aria-disabled')).toBe('true');
    expect(await onList(page, a.id).locator('.vote-note').textContent()).toBe(
      'No more on this card: 2 points at most on one card.',
    );
    await plus(b.id).click();
    await shown(page, '#points', 'No points left: you have spent all 3.');
    // The + says why it is refused, to the eye and to a screen reader (its description).
    expect(await plus(b.id).getAttribute('aria-disabled')).toBe('true');
    expect(await onList(page, b.id).locator('.vote-note').textContent()).toBe(
      'No points left: you have spent them all.',
    );
    const described = await plus(b.id).evaluate(
      (button) => document.getElementById(button.getAttribute('aria-describedby')!)?.textContent,
    );
    expect(described).toBe('No points left: you have spent them all.');
    // Pressed anyway (it stays focusable, so its reason can be reached): nothing is sent, the reason is said again.
    await plus(b.id).focus();
    await page.keyboard.press('Enter');
    await shown(page, '#announce', 'No points left: you have spent them all.');
    await page.locator('#outbox').waitFor({ state: 'hidden', timeout: 5_000 });
    expect(await votesOf(fay, id, a.id, guest.id)).toEqual([1, 1]);
    expect(await votesOf(fay, id, b.id, guest.id)).toEqual([1]);
    // − takes a point back, and + is open again.
    await minus(a.id).click();
    await shown(page, '#points', '1 of 3 points left to give.');
    expect(await plus(b.id).getAttribute('aria-disabled')).toBe('false');
    await page.locator('#outbox').waitFor({ state: 'hidden', timeout: 5_000 });
    expect(await votesOf(fay, id, a.id, guest.id)).toEqual([1]);

    // Ratings: the criterion's scale as buttons; a second press changes the rating, it does not add one.
    await onList(page, a.id).getByRole('button', { name: 'Rate' }).click();
    await onList(page, a.id).getByRole('button', { name: '3 for Impact' }).click();
    await until(
      async () =>
        (
          await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
            params: { path: { workshop_id: id, card_id: a.id } },
          })
        ).length === 1,
      'the rating',
    );
    await onList(page, a.id).getByRole('button', { name: '4 for Impact' }).click();
    await shown(page, `#cards [data-card-id="${a.id}"] [aria-pressed="true"]`, '4');
    await until(async () => {
      const ratings = await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
        params: { path: { workshop_id: id, card_id: a.id } },
      });
      return (
        ratings.length === 1 &&
        ratings[0]!.value === 4 &&
        ratings[0]!.criterium_id === impact.id &&
        ratings[0]!.user_id === guest.id
      );
    }, 'the rating changed to 4');
    expect(
      await onList(page, a.id)
        .getByRole('button', { name: /^Rated 1 of 1$/ })
        .count(),
    ).toBe(1);

    // A comment, from the card's comment panel.
    await onList(page, b.id).getByRole('button', { name: 'Comment' }).click();
    await onList(page, b.id).getByLabel('Your comment').fill('Agreed: <i>soon</i>');
    await onList(page, b.id).getByRole('button', { name: 'Send comment' }).click();
    await shown(page, `#cards [data-card-id="${b.id}"] .comment:not(.waiting) .comment-text`, 'Agreed: <i>soon</i>');
    const comments = await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/comments', {
      params: { path: { workshop_id: id, card_id: b.id } },
    });
    expect(comments.map((comment) => [comment.content, comment.user_id])).toEqual([['Agreed: <i>soon</i>', guest.id]]);
    expect(await page.evaluate(() => document.querySelectorAll('i, b').length)).toBe(0);
    expect(problems.errors).toEqual([]);
  });

  it("adds items under the sections the facilitator made, sees others' items arrive, and reads them once the step stops adding", async () => {
    const { fay, id, inWorkshop, code, idea, steps, toStep } = await workshopWithAnIdea(t, 'Remote Fridays', [
      { name: 'Pros and cons' },
      { name: 'Read', prefs: { allow_items: false } },
    ]);
    const { page, problems, guest } = await guestOnPhone(browser, t, code, id);
    // No sections yet: nothing to add items under.
    expect(await onList(page, idea.id).locator('.items-toggle').isVisible()).toBe(false);
    await fay.post('/v1/workshops/{workshop_id}/sections', { ...inWorkshop, body: { title: 'Pros' } });
    const cons = await fay.post('/v1/workshops/{workshop_id}/sections', { ...inWorkshop, body: { title: 'Cons' } });
    const toggle = onList(page, idea.id).getByRole('button', { name: 'Add an item to “Remote Fridays”' });
    await toggle.waitFor({ timeout: 5_000 });

    await toggle.click();
    await onList(page, idea.id).getByLabel('Section').selectOption({ label: 'Cons' });
    await onList(page, idea.id).getByLabel('Your item').fill('Fewer <b>chats</b> by the coffee');
    await onList(page, idea.id).getByRole('button', { name: 'Add item', exact: true }).click();
    const path = { params: { path: { workshop_id: id, card_id: idea.id } } };
    await until(
      async () => (await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/items', path)).length === 1,
      'the item',
    );
    const [item] = await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/items', path);
    expect([item!.content, item!.section_id, item!.user_id]).toEqual([
      'Fewer <b>chats</b> by the coffee',
      cons.id,
      guest.id,
    ]);
    await shown(
      page,
      `#cards [data-card-id="${idea.id}"] .item:not(.waiting) .item-text`,
      'Fewer <b>chats</b> by the coffee',
    );

    // The facilitator's item arrives in the open panel, under its section.
    await fay.post('/v1/workshops/{workshop_id}/cards/{card_id}/items', {
      ...path,
      body: { section_id: cons.id, content: 'Harder to reach people' },
    });
    await until(
      async () =>
        (await onList(page, idea.id).locator('.item-section:has-text("Cons") .item-text').allTextContents()).length ===
        2,
      'the second item',
    );

    await toStep(steps[1]!);
    await shown(page, '#step-name', 'Read');
    expect(await onList(page, idea.id).locator('.item-form').isVisible()).toBe(false);
    expect(await onList(page, idea.id).locator('.item-section:has-text("Cons") .item-text').allTextContents()).toEqual([
      'Fewer <b>chats</b> by the coffee',
      'Harder to reach people',
    ]);
    expect(await page.evaluate(() => document.querySelectorAll('b, i').length)).toBe(0);
    expect(problems.errors).toEqual([]);
  });

  it('attaches a file to a card, which everyone can download, and says a file needs a connection while offline', async () => {
    const { fay, id, code, idea, steps, toStep } = await workshopWithAnIdea(t, 'Whiteboard photo', [
      { name: 'Attach' },
      { name: 'Closed', prefs: { allow_attachment: false } },
    ]);
    const { page, problems, guest } = await guestOnPhone(browser, t, code, id);
    const context = page.context();
    const card = onList(page, idea.id);

    await card.getByRole('button', { name: 'Attach a file to “Whiteboard photo”' }).click();
    await card
      .getByLabel('File to attach')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('written on the wall') });
    await card.getByRole('button', { name: 'Attach file' }).click();
    const path = { params: { path: { workshop_id: id, card_id: idea.id } } };
    await until(
      async () => (await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', path)).length === 1,
      'the attachment',
    );
    const [attachment] = await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', path);
    expect([attachment!.name, attachment!.mimetype, attachment!.user_id]).toEqual([
      'notes.txt',
      'text/plain',
      guest.id,
    ]);
    const link = card.getByRole('link', { name: 'notes.txt' });
    await link.waitFor({ timeout: 5_000 });
    const download = await fetch(new URL((await link.getAttribute('href'))!, t.url));
    expect(await download.text()).toBe('written on the wall');

    // Offline: nothing is sent, and the person is told why.
    await context.setOffline(true);
    await card
      .getByLabel('File to attach')
      .setInputFiles({ name: 'later.txt', mimeType: 'text/plain', buffer: Buffer.from('later') });
    await card.getByRole('button', { name: 'Attach file' }).click();
    await shown(page, '#refused', /later\.txt.*needs a connection/);
    await context.setOffline(false);
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect(await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', path)).toHaveLength(1);

    await toStep(steps[1]!);
    await shown(page, '#step-name', 'Closed');
    expect(await card.locator('.file-form').isVisible()).toBe(false);
    expect(await card.getByRole('link', { name: 'notes.txt' }).isVisible()).toBe(true);
    expect(problems.errors).toEqual([]);
  });

  it('edits and deletes the cards the step lets them change: their own under `their`, any under `all`, none under `none`', async () => {
    const allowing = (name: string, allow: 'none' | 'their' | 'all') => ({
      name,
      prefs: { allow_edit: allow, allow_delete: allow },
    });
    const workshop = await workshopWithAnIdea(t, 'By Fay', [
      allowing('Their', 'their'),
      allowing('All', 'all'),
      allowing('None', 'none'),
    ]);
    const { fay, id, inWorkshop, code, idea: fays } = workshop;
    const [their, all, none] = workshop.steps as [Step, Step, Step];
    const toStep = (step: Step) => workshop.toStep(step).then(() => shown(page, '#step-name', step.name));
    const { page, problems } = await guestOnPhone(browser, t, code, id);
    page.on('dialog', (dialog) => void dialog.accept());
    await page.getByLabel('Your idea').fill('Typo in titel');
    await page.getByRole('button', { name: 'Add idea' }).click();
    await until(async () => (await cardsTitled(fay, id, 'Typo in titel')) === 1, 'the idea');
    const mine = (await fay.get('/v1/workshops/{workshop_id}/cards', inWorkshop)).find(
      (card) => card.title === 'Typo in titel',
    )!;
    await shown(page, `#cards [data-card-id="${mine.id}"] .title`, 'Typo in titel');
    const offered = (cardId: string) =>
      Promise.all([
        onList(page, cardId)
          .getByRole('button', { name: /^Edit / })
          .isVisible(),
        onList(page, cardId)
          .getByRole('button', { name: /^Delete / })
          .isVisible(),
      ]);
    expect(await offered(mine.id)).toEqual([true, true]);
    expect(await offered(fays.id)).toEqual([false, false]);

    // A new title, from the card's edit panel.
    await onList(page, mine.id).getByRole('button', { name: 'Edit “Typo in titel”' }).click();
    await onList(page, mine.id).getByLabel('New title').fill('No typo in title');
    await onList(page, mine.id).getByRole('button', { name: 'Save' }).click();
    await until(async () => (await cardsTitled(fay, id, 'No typo in title')) === 1, 'the new title');
    await shown(page, `#cards [data-card-id="${mine.id}"] .title`, 'No typo in title');

    await toStep(all);
    expect(await offered(fays.id)).toEqual([true, true]);
    await onList(page, fays.id).getByRole('button', { name: 'Delete “By Fay”' }).click();
    await onList(page, fays.id).waitFor({ state: 'detached', timeout: 5_000 });
    expect(await cardsTitled(fay, id, 'By Fay')).toBe(0);

    await toStep(none);
    expect(await offered(mine.id)).toEqual([false, false]);
    await toStep(their);
    await onList(page, mine.id).getByRole('button', { name: 'Delete “No typo in title”' }).click();
    await onList(page, mine.id).waitFor({ state: 'detached', timeout: 5_000 });
    expect((await fay.get('/v1/workshops/{workshop_id}/cards', inWorkshop)).map((card) => card.title)).toEqual([
      'Topics',
    ]);
    expect(problems.errors).toEqual([]);
  });

  it("offers exactly what the current step allows, and follows the facilitator's step changes and spotlight within a second", async () => {
    const { fay, id, inWorkshop, code } = await workshopWithCode(t);
    const write = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: {
        name: 'Write',
        prefs: {
          allow_vote_on_ideas: false,
          allow_vote_on_clusters: false,
          allow_rate: false,
          allow_add_cluster: false,
        },
      },
    });
    const vote = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: {
        name: 'Vote',
        prefs: { allow_add_idea: false, allow_add_cluster: false, allow_comment: false, allow_vote_on_clusters: false },
      },
    });
    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: write.id } });
    const { cluster, idea } = await sdkClusterWithIdea(fay, inWorkshop, 'Topics', 'In the spotlight');

    const { page, problems } = await phone(browser);
    await joinAsGuest(page, t.url, code, 'Gus');
    const offered = () =>
      page.evaluate(() => {
        const visible = (selector: string) =>
          Array.from(document.querySelectorAll<HTMLElement>(selector)).some((node) => !node.closest('[hidden]'));
        return {
          idea: visible('#idea-form'),
          cluster: visible('#cluster-form'),
          vote: visible('.vote'),
          comment: visible('.comments-toggle'),
        };
      });
    expect(await offered()).toEqual({ idea: true, cluster: false, vote: false, comment: true });

    const stepTook = await timeToShow(
      () => fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: vote.id } }),
      () => shown(page, '#step-name', 'Vote'),
    );
    // Votes on ideas only: the cluster has no + and −.
    expect(await offered()).toEqual({ idea: false, cluster: false, vote: true, comment: false });
    expect(await onList(page, cluster.id).locator('.vote').isVisible()).toBe(false);
    expect(await onList(page, idea.id).locator('.vote').isVisible()).toBe(true);

    const spotlightTook = await timeToShow(
      () =>
        fay.put('/v1/workshops/{id}', {
          params: { path: { id } },
          body: { force_sync: true, view: { card: idea.id } },
        }),
      () => shown(page, `#spotlight [data-card-id="${idea.id}"] .title`, 'In the spotlight'),
    );
    expect(await page.isVisible('#following')).toBe(true);
    expect(await page.textContent('#spotlight-title')).toBe('On the screen now');
    console.log(
      `participant page: a step change shown in ${stepTook} ms, a forced spotlight in ${spotlightTook} ms (REST call included)`,
    );

    await fay.put('/v1/workshops/{id}', {
      params: { path: { id } },
      body: { force_sync: false, view: { card: null } },
    });
    await page.locator('#spotlight').waitFor({ state: 'hidden', timeout: SHOWS_WITHIN_MS });
    expect(problems.errors).toEqual([]);
  });

  it("says what a private, anonymous step keeps from the others, shows none of another's ideas, and reveals them live when the facilitator moves on", async () => {
    const { fay, id, inWorkshop, code } = await workshopWithCode(t);
    const write = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: { name: 'Write alone', prefs: { cards_visible: 'own', authors: 'hidden' } },
    });
    const discuss = await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Discuss' } });
    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: write.id } });
    const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Went well' },
    });
    const pia = (await sdkUser(t, 'Pia')).api;
    await pia.post('/v1/workshops/join', { body: { access_code: code } });

    const { page, problems } = await phone(browser);
    await joinAsGuest(page, t.url, code, 'Gus');
    // Said before anyone writes.
    await shown(page, '#private-notice', 'Only you can see your ideas until the facilitator reveals them');
    await shown(page, '#anonymous-notice', 'Your name is not shown');
    await page.evaluate(() => Object.assign(window, { pageMarker: 'first load' }));

    const pias = await pia.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: "Pia's secret", parent: cluster.id },
    });
    await page.getByLabel('Your idea').fill("Gus's idea");
    await page.getByRole('button', { name: 'Add idea' }).click();
    await shown(page, `#cards .stack:has([data-card-id="${cluster.id}"]) .ideas .title`, "Gus's idea");
    // Gus's idea came after Pia's, and the live state applies changes in order: Pia's was taken in, unseen.
    expect(await page.locator('#cards .ideas .title').allTextContents()).toEqual(["Gus's idea"]);
    expect(await onList(page, pias.id).count()).toBe(0);
    expect(await page.locator('#cards .ideas .by').allTextContents()).toEqual(['By you · your name is not shown']);
    expect(await page.content()).not.toContain("Pia's secret");

    const revealed = await timeToShow(
      () => fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: discuss.id } }),
      () => shown(page, `#cards [data-card-id="${pias.id}"] .title`, "Pia's secret", REVEAL_WITHIN_MS),
      REVEAL_WITHIN_MS,
    );
    console.log(
      `participant page: another participant's idea shown ${revealed} ms after the step that reveals it (REST call included)`,
    );
    expect((await page.locator('#cards .ideas .title').allTextContents()).sort()).toEqual([
      "Gus's idea",
      "Pia's secret",
    ]);
    // Written anonymously: no author on Pia's card, and Gus's still says only the writer knows it is theirs.
    expect(await onList(page, pias.id).locator('.by').isVisible()).toBe(false);
    expect(await page.locator('#cards .ideas .by:not([hidden])').allTextContents()).toEqual([
      'By you · your name is not shown',
    ]);
    await page.locator('#private-notice').waitFor({ state: 'hidden', timeout: SHOWS_WITHIN_MS });
    expect(await page.isVisible('#anonymous-notice')).toBe(false);
    // Live, in the same page: not loaded again.
    expect(await page.evaluate(() => (window as unknown as { pageMarker?: string }).pageMarker)).toBe('first load');
    expect(problems.errors).toEqual([]);
  });

  it('keeps writes made while the network is cut, shows them waiting, and sends each exactly once when it returns', async () => {
    const { fay, id, idea, page, problems, guest } = await guestWithAnIdea(browser, t);

    await page.context().setOffline(true);
    await onList(page, idea.id).locator('.plus').click();
    await page.getByLabel('Your idea').fill('Written offline');
    await page.getByRole('button', { name: 'Add idea' }).click();
    // Calm: a band says what happens, the waiting writes are listed, the vote already counts on the card.
    await shown(page, '#outbox-list', '+1 on “Vote on me”Idea “Written offline” in “Topics”');
    await shown(page, '#outbox-status', 'Kept on this phone: sent as soon as the connection returns.');
    expect(await page.isVisible('#connection')).toBe(true);
    expect(await onList(page, idea.id).locator('.mine').textContent()).toBe('1');
    expect(await votesOf(fay, id, idea.id, guest.id)).toEqual([]);
    expect(await cardsTitled(fay, id, 'Written offline')).toBe(0);

    await page.context().setOffline(false);
    const back = performance.now();
    await page.locator('#outbox').waitFor({ state: 'hidden', timeout: 15_000 });
    await page.locator('body[data-status="live"]').waitFor({ timeout: 15_000 });
    console.log(
      `participant page: writes made offline all answered ${Math.round(performance.now() - back)} ms after the network returned`,
    );
    await page.getByText('Written offline').first().waitFor({ timeout: 5_000 });
    expect(await votesOf(fay, id, idea.id, guest.id)).toEqual([1]);
    expect(await cardsTitled(fay, id, 'Written offline')).toBe(1);
    expect(await page.isVisible('#connection')).toBe(false);
    expect(problems.errors).toEqual([]);
  });

  it('sends a write whose answer was cut off again with the same key, and it lands once; a reload keeps what still waits; a write a day old is not sent', async () => {
    const { fay, id, idea, page, problems, guest } = await guestWithAnIdea(browser, t);

    // The first vote reaches the server, which casts it, and its answer is lost on the way back.
    const keys: string[] = [];
    const replayed: string[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/votes') && response.headers()['idempotent-replayed'] === 'true')
        replayed.push(response.request().headers()['idempotency-key']!);
    });
    await page.route('**/votes', async (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      if (keys.length > 1) return route.continue();
      await route.fetch();
      await route.abort('connectionreset');
    });
    await onList(page, idea.id).locator('.plus').click();
    await page.locator('#outbox').waitFor({ state: 'hidden', timeout: 10_000 });
    expect(keys.length).toBe(2);
    expect(keys[1]).toBe(keys[0]);
    expect(replayed).toEqual([keys[0]]);
    expect(await votesOf(fay, id, idea.id, guest.id)).toEqual([1]);
    await page.unroute('**/votes');

    // An idea whose every answer is cut off stays waiting (the server has it once, under its key)…
    await page.route('**/cards', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByLabel('Your idea').fill('Across a reload');
    await page.getByRole('button', { name: 'Add idea' }).click();
    await shown(page, '#outbox-status', 'Kept on this phone: sent as soon as the connection returns.');
    expect(await page.textContent('#outbox-list')).toBe('Idea “Across a reload” in “Topics”');
    await page.unroute('**/cards');
    // …and after a reload it is sent again from where the page kept it, and is answered from the kept answer.
    await page.reload();
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    await page.locator('#outbox').waitFor({ state: 'hidden', timeout: 10_000 });
    await page.getByText('Across a reload').first().waitFor({ timeout: 5_000 });
    expect(await cardsTitled(fay, id, 'Across a reload')).toBe(1);

    // A write kept more than a day (the phone asleep) is not sent blindly: the server may have run
    // it and forgotten its key by now. The person is told instead.
    const clusterId = (
      await fay.get('/v1/workshops/{workshop_id}/cards', { params: { path: { workshop_id: id } } })
    ).find((card) => card.title === 'Topics')!.id;
    await page.evaluate(
      ({ key, parent }) => {
        const stale = {
          key: 'stale-write-key',
          madeAt: Date.now() - 25 * 3600 * 1000,
          label: 'Idea “Slept on”',
          request: null,
          intent: { kind: 'card', type: 'idea', title: 'Slept on', parent },
        };
        localStorage.setItem(key, JSON.stringify([stale]));
      },
      { key: `workshop-participant-outbox:${id}`, parent: clusterId },
    );
    await page.reload();
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    await shown(page, '#refused', /^Not sent: Idea “Slept on”\. It waited more than a day/);
    expect(await cardsTitled(fay, id, 'Slept on')).toBe(0);
    expect(problems.errors).toEqual([]);
  });

  it('ten phones at once: each joins, adds an idea, and sees all ten appear', async () => {
    const { fay, inWorkshop, code } = await workshopWithCode(t);
    await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Everyone' },
    });
    const phones = await Promise.all(Array.from({ length: 10 }, () => phone(browser)));
    const started = performance.now();
    await Promise.all(phones.map(({ page }, n) => joinAsGuest(page, t.url, code, `Phone ${n + 1}`)));
    const joined = performance.now();
    await Promise.all(
      phones.map(async ({ page }, n) => {
        await page.getByLabel('Your idea').fill(`Idea from phone ${n + 1}`);
        await page.getByRole('button', { name: 'Add idea' }).click();
      }),
    );
    const titles = Array.from({ length: 10 }, (_, n) => `Idea from phone ${n + 1}`).sort();
    await Promise.all(
      phones.map(({ page }) =>
        page.waitForFunction(
          (expected) =>
            JSON.stringify(
              Array.from(document.querySelectorAll('#cards .ideas .title'))
                .map((node) => node.textContent)
                .sort(),
            ) === expected,
          JSON.stringify(titles),
          { timeout: 10_000 },
        ),
      ),
    );
    console.log(
      `participant page: ten phones joined in ${Math.round(joined - started)} ms, then every phone showed all ten ideas ${Math.round(performance.now() - joined)} ms after they were added`,
    );
    expect(await cardsTitled(fay, inWorkshop.params.path.workshop_id, 'Idea from phone 1')).toBe(1);
    for (const { problems } of phones) expect(problems.errors).toEqual([]);
  }, 60_000);

  it('waits in the lobby before the first step, with the title, that it has not started and who is here, and moves to the step live when it starts', async () => {
    const { fay, id, inWorkshop, code } = await workshopWithCode(t, 'Monday <i>kick-off</i>');
    const facilitator = await fay.get('/v1/user/me');
    const first = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: { name: 'Check-in', instructions: 'One word for your mood.' },
    });
    await fay.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Vote' } });
    const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Moods' },
    });
    // The facilitator has the workshop open too: she is among those here.
    await openLive(fay, id);

    const { page, problems } = await phone(browser);
    await joinAsGuest(page, t.url, code, 'Gus');
    await shown(page, '#step-name', 'The workshop has not started yet');
    expect(await page.textContent('#workshop-title')).toBe('Monday <i>kick-off</i>');
    await until(
      async () =>
        JSON.stringify((await page.locator('#lobby-people li').allTextContents()).sort()) ===
        JSON.stringify([facilitator.name, 'Gus (you)'].sort()),
      'the facilitator and Gus listed as here',
    );
    // Nothing to write, and no board: the server would refuse it all until the first step.
    for (const hidden of ['#add', '#cards', '#points', '#empty'])
      expect(await page.isVisible(hidden), `${hidden} in the lobby`).toBe(false);
    expect(await page.getByRole('button', { name: /^Give a point/ }).count()).toBe(0);
    await expectAccessible(page, 'the participant page in the lobby');

    // A second person comes in: the list grows live.
    const { page: other } = await phone(browser);
    await joinAsGuest(other, t.url, code, 'Ida');
    await shown(page, '#lobby-people', /Ida \(guest\)/);

    await timeToShow(
      () => fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: first.id } }),
      () => shown(page, '#step-name', 'Check-in'),
      SHOWS_WITHIN_MS,
    );
    expect(await page.isVisible('#lobby')).toBe(false);
    expect(await page.textContent('#step-instructions')).toBe('One word for your mood.');
    await shown(page, '#announce', 'Now: Check-in');
    // The step lets everyone add ideas: the form is there and the idea lands.
    await page.getByLabel('Your idea').fill('Curious');
    await page.getByRole('button', { name: 'Add idea' }).click();
    await until(async () => (await cardsTitled(fay, id, 'Curious')) === 1, 'the idea written once started');
    await shown(page, `#cards .stack:has([data-card-id="${cluster.id}"]) .ideas .title`, 'Curious');
    expect(await page.evaluate(() => document.querySelectorAll('i').length)).toBe(0);
    expect(problems.errors).toEqual([]);
  });

  it('is usable with a keyboard and a screen reader: labelled controls, named buttons, large targets, no sideways scrolling, text as text', async () => {
    const { fay, id, inWorkshop, code } = await workshopWithCode(t, '<img src=x onerror="window.pwned = 1">');
    const hostile = '<script>window.pwned = 1</script>';
    await fay.post('/v1/workshops/{workshop_id}/criteria', { ...inWorkshop, body: { title: hostile, scale: 3 } });
    const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: hostile },
    });
    const idea = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: '<b>bold?</b>', parent: cluster.id },
    });

    const { page, problems } = await phone(browser);
    await joinAsGuest(page, t.url, code, 'Gus');
    const guest = await guestOf(page, t.url, id);
    await onList(page, idea.id).getByRole('button', { name: 'Rate' }).click();
    await onList(page, idea.id).getByRole('button', { name: 'Comment' }).click();
    const audit = await page.evaluate(() => {
      const visible = (node: Element) => !node.closest('[hidden]') && (node as HTMLElement).offsetParent !== null;
      const controls = Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea')).filter(
        visible,
      );
      const buttons = Array.from(document.querySelectorAll<HTMLButtonElement>('button')).filter(visible);
      return {
        unlabelled: controls.filter((control) => control.labels?.length === 0).map((control) => control.outerHTML),
        unnamed: buttons
          .filter((button) => !(button.getAttribute('aria-label') ?? button.textContent ?? '').trim())
          .map((button) => button.outerHTML),
        small: buttons
          .map((button) => button.getBoundingClientRect())
          .filter((box) => box.width < 44 || box.height < 44)
          .map((box) => `${box.width}×${box.height}`),
        sideways: document.documentElement.scrollWidth > window.innerWidth,
        images: document.images.length,
        bold: document.querySelectorAll('b').length,
        pwned: 'pwned' in window,
      };
    });
    expect(audit).toEqual({
      unlabelled: [],
      unnamed: [],
      small: [],
      sideways: false,
      images: 0,
      bold: 0,
      pwned: false,
    });
    expect(await page.textContent('#workshop-title')).toBe('<img src=x onerror="window.pwned = 1">');
    expect(await onList(page, cluster.id).locator('.title').first().textContent()).toBe(hostile);
    expect(await page.locator('#idea-cluster option').first().textContent()).toBe(hostile);

    // The keyboard alone: to the idea's +, and Enter gives the point.
    await onList(page, idea.id).locator('.minus').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Give a point to “<b>bold?</b>”',
    );
    await page.keyboard.press('Enter');
    await until(
      async () => (await votesOf(fay, id, idea.id, guest.id)).length === 1,
      'the vote given with the keyboard',
    );
    expect(problems.errors).toEqual([]);
  });
});

describe.skipIf(!browserAvailable)('the participant page opened from the join link', () => {
  const browser = useBrowser();
  // Its own server: the wrong codes typed here spend this address's budget for the day.
  const t = useServer();

  it('lets a guest in with a name alone while wrong codes from the same address keep typed codes out, and falls back to the code when the link is old', async () => {
    const { fay, id, inWorkshop, code } = await workshopWithCode(t, 'Venue');
    const { join_url } = await fay.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
    // Someone on the venue's network floods wrong codes until the address is refused.
    const guess = (accessCode: string) =>
      fetch(`${t.url}/v1/workshops/join/guest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_code: accessCode, name: 'Flood' }),
      });
    for (let i = 0; (await guess(String(100_000_000 + i))).status !== 429; i++) expect(i).toBeLessThan(100);

    const { page, problems } = await phone(browser);
    // Typed, even the right code waits.
    await page.goto(`${t.url}/join#code=${code}`);
    await page.getByLabel('Your name').fill('Tess');
    await page.getByRole('button', { name: 'Join' }).click();
    await shown(page, '#join-status', /^Too many tries\. Wait \d+ seconds and try again\.$/);

    // Scanned (a phone opens the link afresh), the link gets in: no code to type, the name has the focus.
    await page.goto('about:blank');
    await page.goto(join_url);
    await shown(page, '#join-notice', "You came with the workshop's link: your name is all it takes.");
    expect(await page.isVisible('#code')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');
    await page.getByLabel('Your name').fill('Kay');
    await page.keyboard.press('Enter');
    await page.locator('body[data-status="live"]').waitFor({ timeout: 10_000 });
    expect(page.url()).toBe(`${t.url}/w/${id}`);
    const kay = await guestOf(page, t.url, id);
    const members = await fay.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop);
    expect(members.find((member) => member.user_id === kay.id)).toMatchObject({
      role: 'participant',
      name: 'Kay',
      guest: true,
    });

    // Archived, the link no longer works: the page says so and asks for the code instead.
    await fay.put('/v1/workshops/{id}', { params: { path: { id } }, body: { state: 'archived' } });
    const { page: late } = await phone(browser);
    await late.goto(join_url);
    await late.getByLabel('Your name').fill('Lou');
    await late.getByRole('button', { name: 'Join' }).click();
    await shown(
      late,
      '#join-status',
      'This link no longer works: the workshop has a new code, or has ended. Type the code shown on the screen.',
    );
    expect(await late.isVisible('#code')).toBe(true);
    expect(await late.evaluate(() => document.activeElement?.id)).toBe('code');
    expect(problems.errors).toEqual([]);
  });
});

describe.skipIf(!browserAvailable)('the participant page at the upload limits', () => {
  const browser = useBrowser();
  // A guest may upload 1 MiB a day, a workshop's files hold 2 MiB.
  const t = useServer({ uploadGuestDailyMb: 1, uploadWorkshopMb: 2 });

  it('says in words that the workshop has no room left, and that the guest has uploaded as much as they can today', async () => {
    const { fay, id, code, idea } = await workshopWithAnIdea(t, 'Photos');
    const { page, problems } = await guestOnPhone(browser, t, code, id);
    const card = onList(page, idea.id);
    const path = { params: { path: { workshop_id: id, card_id: idea.id } } };
    const attachFile = async (name: string, bytes: number) => {
      await card
        .getByLabel('File to attach')
        .setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.alloc(bytes) });
      await card.getByRole('button', { name: 'Attach file' }).click();
    };

    await card.getByRole('button', { name: 'Attach a file to “Photos”' }).click();
    await attachFile('first.bin', 900 * 1024);
    await until(
      async () => (await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', path)).length === 1,
      'the first attachment',
    );
    // Fay's 1.1 MiB fill the workshop's 2 MiB but for 22 KiB.
    const upload = await fay.post('/v1/uploads', {
      body: { file: new File([Buffer.alloc(1126 * 1024)], 'board.bin') },
    });
    await fay.post('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', {
      ...path,
      body: { blob: { key: upload.key, container: upload.container } },
    });

    await attachFile('second.bin', 60 * 1024);
    await shown(page, '#refused', 'Not sent: “second.bin”. This workshop has no room left for more files.');
    await attachFile('third.bin', 200 * 1024);
    await shown(
      page,
      '#refused',
      "Not sent: “third.bin”. You've uploaded as much as you can today. Try again in 24 hours.",
    );
    expect(await fay.get('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', path)).toHaveLength(2);
    expect(problems.errors).toEqual([]);
  });
});
