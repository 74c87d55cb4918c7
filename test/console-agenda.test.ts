import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createClient, type WorkshopClient } from '../client-sdk/src/index';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { createBlankWorkshop, expectAccessible, LAPTOP, PHONE, signUpInConsole } from './helpers/console';
import { sdkUser, sdkWorkshop } from './helpers/sdk';

/*
 * The console's Agenda tab (docs/pages.md#the-console) in a real chromium, against a real server:
 * steps added, renamed, moved from the keyboard, with a mouse and with a finger, their prefs set
 * in words and found exactly so over REST; the settings, criteria, sections, canvas and an
 * illustration round-tripped; and a second facilitator's console following without a reload.
 *
 * Among the slowest files (about 12 s): agendas built through the tab's own controls in
 * chromium (keyboard, mouse and finger), every setting then read back over REST.
 */

/** Opens a workshop's agenda as the holder of `token`. */
async function openAgenda(page: Page, baseUrl: string, id: string, token: string) {
  await page.goto(`${baseUrl}/`);
  await page.evaluate((value) => localStorage.setItem('workshop-console-token', value), token);
  await page.goto(`${baseUrl}/workshops/${id}?tab=agenda`);
  await page.getByRole('heading', { name: 'Steps' }).waitFor();
}

const stepNames = (page: Page) => page.locator('.step-row .step-name').allTextContents();

async function addStep(page: Page, name: string) {
  await page.getByLabel('New step').fill(name);
  await page.getByRole('button', { name: 'Add step' }).click();
  await page.locator('.step-row', { hasText: name }).waitFor();
}

const restSteps = (api: WorkshopClient, id: string) =>
  api.get('/v1/workshops/{workshop_id}/steps', { params: { path: { workshop_id: id } } });
const restNames = async (api: WorkshopClient, id: string) =>
  (await restSteps(api, id)).map((step) => `${step.position}: ${step.name}`);

/** Drags the handle of `name`'s row with the mouse down past the middle of `target`'s row. */
async function dragDownWithMouse(page: Page, name: string, target: string) {
  const handle = (await page.getByRole('button', { name: `Move ${name}`, exact: true }).boundingBox())!;
  const onto = (await page.locator('.step-row', { hasText: target }).boundingBox())!;
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2, onto.y + onto.height * 0.8, { steps: 8 });
  await page.locator('.step-row.drop-after').waitFor();
  await page.mouse.up();
}

describe.skipIf(!browserAvailable)('the console: the agenda', () => {
  const t = useServer();
  const browser = useBrowser();

  it('builds an agenda: steps added, renamed, moved by keyboard and by mouse, prefs and budgets set', async () => {
    const { page, problems } = await browser.newPage(LAPTOP);
    page.setDefaultTimeout(8000);
    await signUpInConsole(page, t.url, 'Ada');
    // With no workshops yet the create form opens by itself once the list is read: wait for that.
    await page.getByRole('form', { name: 'Create a workshop' }).waitFor();
    const id = await createBlankWorkshop(page, 'Team retro');
    for (const name of ['Warm-up', 'Ideas', 'Vote']) await addStep(page, name);
    expect(await stepNames(page)).toEqual(['Warm-up', 'Ideas', 'Vote']);

    // Renamed in the editor of the step picked from the list.
    await page.getByRole('button', { name: 'Ideas', exact: true }).click();
    await page.getByLabel('Step name').fill('Silent ideas');
    await page.getByRole('button', { name: 'Save step' }).click();
    await shown(page, '.step-editor .done', 'Saved.');
    await expect.poll(() => stepNames(page)).toEqual(['Warm-up', 'Silent ideas', 'Vote']);

    // From the keyboard: Move up, then the handle's arrow key twice in a row; focus stays with the step.
    await page.getByRole('button', { name: 'Move Vote up' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => stepNames(page)).toEqual(['Warm-up', 'Vote', 'Silent ideas']);
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    await expect.poll(focused).toBe('Move Vote up');
    await page.getByRole('button', { name: 'Move Silent ideas', exact: true }).focus();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => stepNames(page)).toEqual(['Silent ideas', 'Warm-up', 'Vote']);
    await expect.poll(focused).toBe('Move Silent ideas');
    const token = await page.evaluate(() => localStorage.getItem('workshop-console-token'));
    const api = createClient({ baseUrl: t.url, token });
    await expect.poll(() => restNames(api, id)).toEqual(['0: Silent ideas', '1: Warm-up', '2: Vote']);

    // With the mouse: dragged below the next step, a drop indicator shows where it lands.
    await dragDownWithMouse(page, 'Silent ideas', 'Warm-up');
    await expect.poll(() => stepNames(page)).toEqual(['Warm-up', 'Silent ideas', 'Vote']);
    await expect.poll(() => restNames(api, id)).toEqual(['0: Warm-up', '1: Silent ideas', '2: Vote']);

    // Private writing and anonymous authors for the ideas step; voting off there.
    await page.getByRole('button', { name: 'Silent ideas', exact: true }).click();
    await page.getByLabel('Private writing: each participant sees only their own cards').check();
    await page.getByLabel('Anonymous: hidden from everyone').check();
    await page.getByLabel('Vote on ideas').uncheck();
    await page.getByText('What the screens show during this step').click();
    await page.getByLabel('Order', { exact: true }).selectOption({ label: 'By votes' });
    await page.getByRole('button', { name: 'Save step' }).click();
    await shown(page, '.step-editor .done', 'Saved.');

    // A budget of 5 points in all, at most 2 on one card.
    const settings = page.getByRole('form', { name: 'Workshop settings' });
    await settings.getByLabel('Points each person may give in all: Unlimited').first().uncheck();
    await settings.getByLabel('Points each person may give in all', { exact: true }).fill('5');
    await settings.getByLabel('Most points one person may give one card').fill('2');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await shown(page, '.settings .done', 'Saved.');

    const steps = await restSteps(api, id);
    const set = { cards_visible: 'own', authors: 'hidden', allow_vote_on_ideas: false };
    expect(steps[1]!.prefs).toEqual({ ...steps[0]!.prefs, ...set });
    expect([steps[0]!.view.sort, steps[1]!.view.sort]).toEqual(['position', 'score']);
    expect(steps[0]!.prefs).toMatchObject({ cards_visible: 'all', authors: 'shown', allow_vote_on_ideas: true });
    const workshop = await api.get('/v1/workshops/{id}', { params: { path: { id } } });
    expect(workshop.vote_limit).toEqual({ positive: 5, negative: -1, max_positive: 2, max_negative: 3 });

    // A refusal is the service's own words.
    await page.getByLabel('Step name').fill('   ');
    await page.getByRole('button', { name: 'Save step' }).click();
    await shown(page, '.step-editor .problem', /./);
    expect(await page.getByLabel('Step name').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'the agenda');
    expect(problems.errors).toEqual([]);
  });

  it('moves a step with a finger on a phone', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [], 'Phone agenda');
    for (const name of ['One', 'Two', 'Three'])
      await fay.api.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name } });
    const { page, problems } = await browser.newPage(PHONE);
    await openAgenda(page, t.url, id, fay.api.token!);
    await expectAccessible(page, 'the agenda on a phone');

    const handle = (await page.getByRole('button', { name: 'Move One', exact: true }).boundingBox())!;
    const last = (await page.locator('.step-row', { hasText: 'Three' }).boundingBox())!;
    const x = handle.x + handle.width / 2;
    const cdp = await page.context().newCDPSession(page);
    const touch = (type: string, y: number) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] } as never);
    await touch('touchStart', handle.y + handle.height / 2);
    for (let y = handle.y + 10; y < last.y + last.height * 0.8; y += 12) await touch('touchMove', y);
    await touch('touchMove', last.y + last.height * 0.8);
    await page.locator('.step-row.drop-after').waitFor();
    await touch('touchEnd', 0);
    await expect.poll(() => stepNames(page)).toEqual(['Two', 'Three', 'One']);
    await expect.poll(() => restNames(fay.api, id)).toEqual(['0: Two', '1: Three', '2: One']);
    expect(problems.errors).toEqual([]);
  });

  it('round-trips criteria, sections, settings, the canvas and an illustration', async () => {
    const fay = await sdkUser(t, 'Fay');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [], 'Planning');
    await fay.api.post('/v1/workshops/{workshop_id}/steps', { ...inWorkshop, body: { name: 'Kick-off' } });
    const { page, problems } = await browser.newPage(LAPTOP);
    await openAgenda(page, t.url, id, fay.api.token!);

    const criteria = page.getByRole('region', { name: 'Criteria' });
    await criteria.getByLabel('New criterion').fill('Impact');
    await criteria.getByLabel('Scale').selectOption({ label: '0 to 4' });
    await criteria.getByRole('button', { name: 'Add criterion' }).click();
    await criteria.locator('.titled-row[data-title="Impact"]').waitFor();
    await criteria.getByLabel('New criterion').fill('Effort');
    await criteria.getByLabel('Scale').selectOption({ label: '0 to 10' });
    await criteria.getByRole('button', { name: 'Add criterion' }).click();
    const effort = criteria.locator('.titled-row[data-title="Effort"]');
    await effort.getByRole('textbox').fill('Cost');
    await effort.getByRole('button', { name: 'Rename' }).click();
    await criteria.locator('.titled-row[data-title="Cost"]').waitFor();
    const impact = criteria.locator('.titled-row[data-title="Impact"]');
    await impact.getByRole('button', { name: 'Delete' }).click();
    await impact.getByRole('button', { name: 'Delete criterion' }).click();
    await expect.poll(() => criteria.locator('.titled-row').count()).toBe(1);
    const [cost, ...others] = await fay.api.get('/v1/workshops/{workshop_id}/criteria', inWorkshop);
    expect([cost!.title, cost!.scale, others.length]).toEqual(['Cost', 1, 0]);

    const sections = page.getByRole('region', { name: 'Sections' });
    for (const title of ['Pros', 'Cons']) {
      await sections.getByLabel('New section').fill(title);
      await sections.getByRole('button', { name: 'Add section' }).click();
      await sections.locator(`.titled-row[data-title="${title}"]`).waitFor();
    }
    const cons = sections.locator('.titled-row[data-title="Cons"]');
    await cons.getByRole('textbox').fill('Risks');
    await cons.getByRole('button', { name: 'Rename' }).click();
    await sections.locator('.titled-row[data-title="Risks"]').waitFor();
    const pros = sections.locator('.titled-row[data-title="Pros"]');
    await pros.getByRole('button', { name: 'Delete' }).click();
    await pros.getByRole('button', { name: 'Delete section' }).click();
    await expect
      .poll(async () => (await fay.api.get('/v1/workshops/{workshop_id}/sections', inWorkshop)).map((s) => s.title))
      .toEqual(['Risks']);

    const settings = page.getByRole('form', { name: 'Workshop settings' });
    await settings.getByLabel('Title').fill('Planning day');
    await settings.getByLabel('Description').fill('Where we go next quarter');
    await settings.getByLabel('Guests may join').uncheck();
    await settings.getByLabel('Participants’ screens follow the shared screen').check();
    await settings.getByLabel('Send members a daily mail').uncheck();
    await settings.getByLabel('Tell members when the step changes').uncheck();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await shown(page, '.settings .done', 'Saved.');
    await page.getByRole('heading', { level: 1, name: 'Planning day' }).waitFor();
    expect(await fay.api.get('/v1/workshops/{id}', { params: { path: { id } } })).toMatchObject({
      title: 'Planning day',
      description: 'Where we go next quarter',
      allow_guests: false,
      force_sync: true,
      daily_mail: false,
      change_step_notifications: false,
    });

    // A predefined canvas, then changed by hand, then deleted.
    const canvas = page.getByRole('region', { name: 'Canvas' });
    await canvas.getByRole('combobox', { name: 'Predefined canvas' }).selectOption({ label: 'SWOT analysis' });
    await canvas.getByRole('button', { name: 'Use this canvas' }).click();
    await shown(page, '.canvas-name', 'SWOT analysis');
    await expect.poll(() => canvas.locator('.canvas-current .canvas-zone').count()).toBe(4);
    await expectAccessible(page, 'the agenda with a canvas');
    await canvas.getByText('Change the grid and zones').click();
    const layout = canvas.getByRole('form', { name: 'Canvas layout' });
    await layout.getByLabel('Canvas name').fill('Retro board');
    await layout.getByLabel('Columns').fill('10');
    await layout.getByLabel('Rows').fill('6');
    await layout.getByRole('button', { name: 'Remove zone 4 (Threats)' }).click();
    await layout.getByRole('group', { name: 'Zone 1' }).getByLabel('Name').fill('Keep');
    await layout.getByRole('button', { name: 'Add a zone' }).click();
    const added = layout.getByRole('group', { name: 'Zone 4' });
    await added.getByLabel('Name').fill('Extra');
    await added.getByLabel('Width').fill('2');
    await added.getByLabel('Height').fill('2');
    await layout.getByRole('button', { name: 'Save canvas' }).click();
    await shown(page, '.canvas-name', 'Retro board');
    const saved = await fay.api.get('/v1/workshops/{workshop_id}/canvas', inWorkshop);
    expect(saved.background).toMatchObject({ cols: 10, rows: 6 });
    expect(saved.zones.map(({ name, x, y, cols, rows }) => [name, x, y, cols, rows])).toEqual([
      ['Keep', 0, 0, 6, 4],
      ['Weaknesses', 6, 0, 6, 4],
      ['Opportunities', 0, 4, 6, 4],
      ['Extra', 0, 0, 2, 2],
    ]);
    await canvas.getByRole('button', { name: 'Delete the canvas' }).click();
    await canvas.getByRole('button', { name: 'Delete canvas' }).click();
    await shown(page, '.canvas-panel > .empty', 'This workshop has no canvas.');
    expect((await t.request('GET', `/v1/workshops/${id}/canvas`, { token: fay.api.token! })).status).toBe(404);

    // An illustration uploaded, shown (the page's policy allows it), placed, removed.
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } })
      .png()
      .toBuffer();
    const step = page.locator('.step-editor');
    await step.getByLabel('Add an image').setInputFiles({ name: 'sunrise.png', mimeType: 'image/png', buffer: png });
    const image = step.locator('.illustration img');
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    await step.getByLabel('Where it shows').selectOption('left');
    const illustration = `/v1/workshops/${id}/steps/${(await restSteps(fay.api, id))[0]!.id}/illustration`;
    const placed = () => t.request<{ align: string }>('GET', illustration, { token: fay.api.token! });
    await expect.poll(async () => (await placed()).body.align).toBe('left');
    await step.getByRole('button', { name: 'Remove the illustration' }).click();
    await step.getByRole('button', { name: 'Remove', exact: true }).click();
    await shown(page, '.illustration .empty', 'This step has no illustration.');
    expect(problems.errors).toEqual([]);
  });

  it('shows a second facilitator’s changes without a reload', async () => {
    const fay = await sdkUser(t, 'Fay');
    const gil = await sdkUser(t, 'Gil');
    const { id, inWorkshop } = await sdkWorkshop(fay.api, [gil.api], 'Shared agenda');
    const gilRole = (await fay.api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop)).find(
      (role) => role.user_id === gil.id,
    )!;
    await fay.api.put('/v1/workshops/{workshop_id}/user_roles/{id}', {
      params: { path: { workshop_id: id, id: gilRole.id } },
      body: { role: 'facilitator' },
    });

    const fays = await browser.newPage(LAPTOP);
    const gils = await browser.newPage(LAPTOP);
    await openAgenda(fays.page, t.url, id, fay.api.token!);
    await openAgenda(gils.page, t.url, id, gil.api.token!);

    await addStep(fays.page, 'Check-in');
    await expect.poll(() => stepNames(gils.page)).toEqual(['Check-in']);
    // The open editor follows too, as long as it holds no edits of its own.
    await fays.page.getByLabel('Step name').fill('Check-in round');
    await fays.page.getByRole('button', { name: 'Save step' }).click();
    await expect.poll(() => gils.page.getByLabel('Step name').inputValue()).toBe('Check-in round');

    const criteria = gils.page.getByRole('region', { name: 'Criteria' });
    await criteria.getByLabel('New criterion').fill('Value');
    await criteria.getByRole('button', { name: 'Add criterion' }).click();
    await fays.page.locator('.titled-row[data-title="Value"]').waitFor();
    await fays.page.locator('.step-row').getByRole('button', { name: 'Delete' }).click();
    await fays.page.getByRole('button', { name: 'Delete step' }).click();
    await expect.poll(() => stepNames(gils.page)).toEqual([]);
    expect([...fays.problems.errors, ...gils.problems.errors]).toEqual([]);
  });
});
