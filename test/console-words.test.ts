import { describe, expect, it } from 'vitest';
import { browserAvailable, openScreen, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, mailedLink, openConsoleWithToken, PHONE } from './helpers/console';
import { sdkRunningWorkshop, sdkUser } from './helpers/sdk';

/*
 * The console's words for each reader, seen in a real chromium (docs/pages.md): the log's lines
 * in plain words, a refusal said once by field, the screen speaking to the room. That an ordinary
 * load asks for nothing that is not there or not allowed: pages-ordinary-load.test.ts.
 *
 * Among the slowest files (about 15 to 20 s): most of it is the API reference at /docs, a page of
 * every route drawn by Swagger UI and checked by axe-core whole at two widths, one operation open
 * and tried out.
 */

describe.skipIf(!browserAvailable)('the console: words for each reader', () => {
  const t = useServer();
  const browser = useBrowser();

  async function scene() {
    const { fay, pat, id, inWorkshop, step, cluster } = await sdkRunningWorkshop(t);
    const other = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'Lowlights' },
    });
    const idea = await pat.api.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'idea', title: 'New office plants', parent: other.id },
    });
    return { fay, pat, id, inWorkshop, step, cluster, idea };
  }

  it('says each change of the log in plain words, with the right articles', async () => {
    const { fay, id, inWorkshop, cluster, idea } = await scene();
    await fay.api.put('/v1/workshops/{workshop_id}/cards/{id}', {
      params: { path: { workshop_id: id, id: idea.id } },
      body: { parent: cluster.id },
    });
    await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { force_sync: true } });
    await fay.api.post('/v1/workshops/{workshop_id}/exports', { ...inWorkshop, body: { type: 'xlsx' } });
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=log`);
    await page.locator('.log-entry').first().waitFor();
    const words = await page.locator('.log-words').allTextContents();
    expect(words).toContain('Fay asked for an Excel file.');
    expect(words).toContain(
      'Fay changed the workshop “Quarterly review”: its setting that participants follow the facilitator’s view.',
    );
    expect(words).toContain('Fay changed the idea “New office plants”: its cluster.');
    for (const line of words) expect(line).not.toMatch(/\(|_|\ba [AEIOU]/);
    expect(problems.errors).toEqual([]);
  });

  it('says a refusal once, by field, naming the address it refuses', async () => {
    const { fay, id } = await scene();
    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}?tab=people`);
    const form = page.getByRole('form', { name: 'Invite by e-mail' });
    await form.getByLabel('E-mail addresses').fill('ann@example.test, ann.example.test');
    await form.getByLabel('Message').fill('Join us');
    await form.getByRole('button', { name: 'Send invitations' }).click();
    await shown(
      page,
      '.invite-form .problem',
      'Not an e-mail address: ann.example.test (separate addresses with commas).',
    );
    expect(await form.getByLabel('E-mail addresses').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'an invitation refused');

    // Signing up with a short password: the rule, once, the field marked.
    const other = await browser.newPage(LAPTOP);
    await other.page.goto(`${t.url}/`);
    await other.page.getByRole('button', { name: 'Create an account' }).click();
    await other.page.getByLabel('Your name').fill('Sam');
    await other.page.getByLabel('E-mail address').fill(`sam-${process.pid}@example.test`);
    await other.page.getByLabel('Password').fill('short');
    await other.page.getByRole('button', { name: 'Create account' }).click();
    await shown(other.page, '.problem', 'Passwords have at least 8 characters.');
    expect(problems.errors).toEqual([]);
    expect(other.problems.errors).toEqual([]);
  });

  it('speaks to the room on the screen, and shades the tab strip that scrolls on a phone', async () => {
    const { fay, id, step } = await scene();
    await fay.api.put('/v1/workshops/{workshop_id}/steps/{id}', {
      params: { path: { workshop_id: id, id: step.id } },
      body: { name: 'Collect', prefs: { cards_visible: 'own', authors: 'hidden' } },
    });
    const screen = await browser.newPage(LAPTOP);
    await openScreen(screen.page, t.url, id, fay.api.token!);
    await shown(screen.page, '#private-notice', 'Ideas stay with their authors until the facilitator reveals them');
    await shown(screen.page, '#anonymous-notice', 'Ideas are shown without their authors’ names');

    const { page, problems } = await browser.newPage(PHONE);
    await openConsoleWithToken(page, t.url, fay.api.token!, `/workshops/${id}`);
    const tabs = page.getByRole('navigation', { name: 'Workshop' });
    await tabs.waitFor();
    const strip = await tabs.evaluate((nav) => ({
      scrolls: nav.scrollWidth > nav.clientWidth,
      shade: getComputedStyle(nav).backgroundImage,
    }));
    expect(strip.scrolls).toBe(true);
    expect(strip.shade).toMatch(/radial-gradient/);
    expect(problems.errors).toEqual([]);
  });

  it('starts a Retrospective with 5 points to vote and no negative vote', async () => {
    const fay = await sdkUser(t, 'Fay');
    const workshop = await fay.api.post('/v1/workshops', { body: { template: 'retrospective' } });
    expect(workshop.vote_limit).toMatchObject({ positive: 5, negative: 0 });

    // Its starter clusters are the template's: the screen names no author for them.
    const inWorkshop = { params: { path: { workshop_id: workshop.id } } };
    const [first] = await fay.api.get('/v1/workshops/{workshop_id}/steps', inWorkshop);
    await fay.api.put('/v1/workshops/{id}', {
      params: { path: { id: workshop.id } },
      body: { current_step_id: first!.id },
    });
    const { page, problems } = await browser.newPage(LAPTOP);
    await openScreen(page, t.url, workshop.id, fay.api.token!);
    await expect
      .poll(async () => (await page.locator('article.card .title').allTextContents()).sort(), { timeout: 10_000 })
      .toEqual(["Didn't go well", 'Ideas to try', 'Went well']);
    expect(await page.locator('article.card .by').count()).toBe(0);
    expect(problems.errors).toEqual([]);
  });

  it(
    'serves an API reference at /docs with no serious or critical accessibility violation',
    { timeout: 120_000 },
    async () => {
      // One page, checked at a laptop's width, then narrowed to a phone's: loading and drawing the
      // reference twice cost 3 s and checked the same markup.
      const { page, problems } = await browser.newPage(LAPTOP);
      await page.goto(`${t.url}/docs`);
      await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
      await expectAccessible(page, '/docs at 1280 px');
      // An operation opened shows its parameters and answers: still no violation.
      await page.locator('.opblock-summary-control').first().click();
      await page.locator('.opblock-body').first().waitFor();
      // The rest of the page is as checked above: the operation opened is what is checked now.
      const opened = '.opblock:has(.opblock-body)';
      await expectAccessible(page, '/docs with an operation open at 1280 px', opened);
      // Trying it out shows an input for each parameter, each named.
      await page.locator('.opblock-body .try-out__btn').first().click();
      await page.locator('.opblock-body .parameters input').first().waitFor();
      await expectAccessible(page, '/docs trying an operation out at 1280 px', opened);
      // At a phone's width, the whole page again, the operation still open and tried out.
      await page.setViewportSize(PHONE.viewport!);
      await expectAccessible(page, '/docs trying an operation out at 390 px');
      expect(problems.errors).toEqual([]);
    },
  );

  it('names the workshop and who invited on the invitation page, the address filled in', async () => {
    const { fay, id, inWorkshop } = await scene();
    const ann = `ann-${process.pid}-${Date.now()}@example.test`;
    await fay.api.post('/v1/workshops/{workshop_id}/invitations', {
      ...inWorkshop,
      body: { emails: ann, content: 'Join our review' },
    });
    const link = await mailedLink(t, ann, '/invitations/');
    const { page, problems } = await browser.newPage(PHONE);
    await page.goto(link);
    await shown(
      page,
      '.signed-out .notice',
      'Fay invites you to the workshop “Quarterly review”. Sign in or create an account to accept the invitation.',
    );
    expect(await page.getByLabel('E-mail address').inputValue()).toBe(ann);
    await expectAccessible(page, 'an invitation, signed out');
    await page.getByRole('button', { name: 'Create an account' }).click();
    expect(await page.getByLabel('E-mail address').inputValue()).toBe(ann);
    await page.getByLabel('Your name').fill('Ann');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();
    // Accepted: a participant goes on to the workshop's participant page.
    await page.waitForURL(`${t.url}/w/${id}`);
    const members = await fay.api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop);
    expect(members.map((member) => member.name)).toContain('Ann');
    expect(problems.errors).toEqual([]);
  });

  it('names the workshop on the join page opened from its link', async () => {
    const { fay, inWorkshop } = await scene();
    const { join_url } = await fay.api.get('/v1/workshops/{workshop_id}/access_code', inWorkshop);
    const { page, problems } = await browser.newPage(PHONE);
    await page.goto(join_url);
    await shown(page, '#join-title', 'Join “Quarterly review”');
    expect(await page.title()).toBe('Join “Quarterly review”');
    expectError404(await fetch(`${t.url}/v1/workshops/join/not-a-key`));
    expect(problems.errors).toEqual([]);
  });
});

function expectError404(response: Response) {
  expect(response.status).toBe(404);
}
