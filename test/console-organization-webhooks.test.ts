import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browserAvailable, shown, useBrowser } from './helpers/browser';
import { useServer } from './helpers/cast';
import { expectAccessible, LAPTOP, openConsoleWithToken, PHONE } from './helpers/console';
import { confirmAddress } from './helpers/factories';
import { useProvider } from './helpers/oidc-provider';
import { sdkUser } from './helpers/sdk';
import { startWebhookReceiver, type Received, type WebhookReceiver } from './helpers/webhook-receiver';
import { until } from './helpers/wait';

/*
 * An organization's webhooks and single sign-on in the console (docs/pages.md#an-organizations-settings),
 * in a real chromium against the real server, a real receiver (verifying with the `standardwebhooks`
 * package, which nobody here wrote) and a real OpenID provider: an endpoint made in the page gets a
 * test ping; a rotated secret alone verifies the next one; a failed delivery is retried from the
 * page; `sso_required` keeps the admin's own password session out, which can still turn it off,
 * and a session through the provider manages the page again.
 *
 * Among the slowest files (about 20 s): deliveries to the receiver are awaited as the page shows
 * them (a failed one waits out its retry first), axe-core runs on five states of the page, and a
 * sign-in goes through the provider's own login and consent pages.
 */

describe.skipIf(!browserAvailable)('the console: an organization’s webhooks and single sign-on', () => {
  const op = useProvider();
  const t = useServer(() => ({
    // One quick retry: a delivery the receiver refuses twice is failed within a second.
    webhooks: { retryScheduleS: [0.2], disableAfterHours: 72, allowPrivate: true, leaseMs: 60_000 },
    oidc: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, name: 'Acme ID' },
  }));
  beforeAll(() => op.register(`${t.url}/v1/auth/oidc/callback`));
  const browser = useBrowser();
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  async function scene() {
    const ada = await sdkUser(t, 'Ada');
    await confirmAddress(t, ada.email, ada.api.token!);
    const org = await ada.api.post('/v1/organizations', { body: { name: 'Acme Research' } });
    return { ada, org, inOrg: { params: { path: { id: org.id } } } };
  }

  /** The `n`-th ping the receiver answered with a 2xx (1-based), once it came. */
  async function nthPing(n: number): Promise<Received> {
    const pings = () => receiver.delivered().filter((received) => received.type === 'ping');
    await until(() => pings().length >= n, `ping ${n} at the receiver`, 10_000);
    return pings()[n - 1]!;
  }
  const headersOf = (received: Received) => ({
    'webhook-id': received.id,
    'webhook-timestamp': received.timestamp,
    'webhook-signature': received.signature,
  });

  it('makes an endpoint whose secret is shown once and copied, pings it, and rotates the secret, which verifies the next', async () => {
    const { ada, org, inOrg } = await scene();
    const { page, problems } = await browser.newPage({ ...LAPTOP, permissions: ['clipboard-read', 'clipboard-write'] });
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    await shown(page, '#webhooks > .empty', 'This organization has no webhook endpoints.');

    const form = page.getByRole('form', { name: 'Add a webhook endpoint' });
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Description (optional)').fill('tracker');
    await form.getByRole('checkbox', { name: 'Every event, including those added later' }).uncheck();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await shown(page, '.create-webhook .problem', 'Choose one event at least, or every event.');
    await form.getByRole('checkbox', { name: /^workshop\.created / }).check();
    await form.getByRole('checkbox', { name: /^export\.failed / }).check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    // The signing secret, shown once, copied with its button.
    await shown(
      page,
      '#webhooks > .secret-once .secret-title',
      `The signing secret of ${receiver.url}. It is shown this once: copy it now.`,
    );
    const firstBox = page.locator('#webhooks > .secret-once');
    const secret = (await firstBox.locator('.secret-value').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await firstBox.getByRole('button', { name: 'Copy the secret' }).click();
    await shown(page, '#webhooks > .secret-once .secret-copied', 'Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    const [endpoint] = await ada.api.get('/v1/organizations/{id}/webhooks', inOrg);
    expect(endpoint).toMatchObject({
      url: receiver.url,
      events: ['workshop.created', 'export.failed'],
      description: 'tracker',
      enabled: true,
    });
    const row = page.locator(`.webhook-row[data-webhook="${endpoint!.id}"]`);
    await shown(
      page,
      `.webhook-row[data-webhook="${endpoint!.id}"] .webhook-events`,
      'workshop.created, export.failed',
    );
    await expectAccessible(page, 'a new endpoint, its secret shown once');
    await firstBox.getByRole('button', { name: 'I have kept it: hide it' }).click();
    await firstBox.waitFor({ state: 'detached' });

    // A test ping, verified at the receiver with the secret the page showed.
    receiver.trust(secret);
    await row.getByRole('button', { name: `Send a test ping to ${receiver.url}` }).click();
    const first = await nthPing(1);
    expect(() => new Webhook(secret).verify(first.body, headersOf(first))).not.toThrow();
    const firstRow = `.delivery-row[data-delivery="${first.id}"]`;
    await shown(page, `${firstRow} .delivery-status`, 'Delivered');
    await shown(page, `${firstRow} .delivery-detail`, '1 attempt, answered 204');

    // Rotated: a new secret shown once, which alone verifies the next delivery.
    await row.getByRole('button', { name: `Rotate the secret of ${receiver.url}` }).click();
    await row
      .getByRole('group', {
        name: /^Make a new signing secret for .*\? For 24 hours deliveries carry a signature by each/,
      })
      .waitFor();
    await row.getByRole('button', { name: 'Rotate secret' }).click();
    await shown(
      page,
      '.webhook-row .secret-title',
      `The new signing secret of ${receiver.url}. It is shown this once: copy it now.`,
    );
    const rotated = (await row.locator('.secret-value').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await row.getByRole('button', { name: 'I have kept it: hide it' }).click();
    await row.getByRole('button', { name: `Send a test ping to ${receiver.url}` }).click();
    const second = await nthPing(2);
    expect(() => new Webhook(rotated).verify(second.body, headersOf(second))).not.toThrow();
    expect(second.signature.split(' ')).toHaveLength(2);
    await shown(page, `.delivery-row[data-delivery="${second.id}"] .delivery-status`, 'Delivered');
    // The previous secret signs too, for the 24 hours of the rotation.
    expect(() => new Webhook(secret).verify(second.body, headersOf(second))).not.toThrow();

    expect(receiver.refused).toEqual([]);
    expect(problems.errors).toEqual([]);
  });

  it('shows a failed delivery, retries it from the page, fits a phone, turns the endpoint off and on, and deletes it, asked first', async () => {
    const { ada, org, inOrg } = await scene();
    const endpoint = await ada.api.post('/v1/organizations/{id}/webhooks', {
      ...inOrg,
      body: { url: receiver.url, events: ['*'] },
    });
    receiver.trust(endpoint.secret);
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    const row = page.locator(`.webhook-row[data-webhook="${endpoint.id}"]`);
    await shown(page, `.webhook-row[data-webhook="${endpoint.id}"] .webhook-events`, 'every event');

    // The receiver is down: the ping fails twice (the first try and the one retry), then is failed.
    receiver.answerWith(503);
    await row.getByRole('button', { name: `Send a test ping to ${receiver.url}` }).click();
    await page.locator('.delivery-row.delivery-failed').waitFor({ timeout: 10_000 });
    const failed = (
      await ada.api.get('/v1/organizations/{id}/webhooks/{webhook_id}/deliveries', {
        params: { path: { id: org.id, webhook_id: endpoint.id } },
      })
    )[0]!;
    expect(failed).toMatchObject({ event_type: 'ping', status: 'failed', attempts: 2, last_status_code: 503 });
    const failedRow = `.delivery-row[data-delivery="${failed.id}"]`;
    await shown(page, `${failedRow} .delivery-status`, 'Failed');
    await shown(page, `${failedRow} .delivery-detail`, '2 attempts, answered 503');
    await expectAccessible(page, 'an endpoint with a failed delivery');

    // Up again: retried from the page (from the keyboard), with the same webhook-id.
    receiver.answerWith(204);
    await page.locator(failedRow).getByRole('button', { name: 'Retry the ping delivery' }).focus();
    await page.keyboard.press('Enter');
    await shown(page, `${failedRow} .delivery-status`, 'Delivered', 10_000);
    const retried = receiver.delivered().find((received) => received.id === failed.id);
    expect(retried?.type).toBe('ping');
    expect(() => new Webhook(endpoint.secret).verify(retried!.body, headersOf(retried!))).not.toThrow();
    const after = await ada.api.get('/v1/organizations/{id}/webhooks/{webhook_id}/deliveries', {
      params: { path: { id: org.id, webhook_id: endpoint.id } },
    });
    expect(after.find((delivery) => delivery.id === failed.id)?.status).toBe('succeeded');
    expect(receiver.refused).toEqual([]);

    // On a phone, with its deliveries.
    const phone = await browser.newPage(PHONE);
    await openConsoleWithToken(phone.page, t.url, ada.api.token!, `/organizations/${org.id}`);
    await phone.page.locator(failedRow).waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(phone.page, 'an endpoint and its deliveries on a phone');

    // An event made elsewhere shows when the list is read again.
    const made = await t.request('POST', `/v1/organizations/${org.id}/workshops`, {
      token: ada.api.token!,
      body: { title: 'Planning' },
    });
    expect(made.status).toBe(201);
    await until(() => receiver.delivered().some((received) => received.type === 'workshop.created'), 'the event');
    await row.getByRole('button', { name: `Read again the deliveries to ${receiver.url}` }).click();
    await shown(
      page,
      `.webhook-row[data-webhook="${endpoint.id}"] .delivery-row:first-child .delivery-event`,
      'workshop.created',
    );

    // Turned off, then on again.
    await row.getByRole('button', { name: `Turn off ${receiver.url}` }).click();
    await shown(page, '.webhook-row-said', 'The endpoint is off: nothing is sent.');
    await shown(page, `.webhook-row[data-webhook="${endpoint.id}"] .webhook-state`, 'Off');
    expect((await ada.api.get('/v1/organizations/{id}/webhooks', inOrg))[0]?.enabled).toBe(false);
    expect(await row.getByRole('button', { name: `Send a test ping to ${receiver.url}` }).isDisabled()).toBe(true);
    await row.getByRole('button', { name: `Turn on ${receiver.url}` }).click();
    await shown(page, '.webhook-row-said', 'The endpoint is on: events are sent to it again.');
    expect((await ada.api.get('/v1/organizations/{id}/webhooks', inOrg))[0]?.enabled).toBe(true);

    // Deleted, asked first in words.
    await row.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await row
      .getByRole('group', {
        name: `Delete the endpoint ${receiver.url}? Nothing more is sent there, and its deliveries go with it.`,
      })
      .waitFor();
    await row.getByRole('button', { name: 'Delete endpoint' }).click();
    await shown(page, '.webhook-said', `The endpoint ${receiver.url} is deleted: nothing more is sent there.`);
    await row.waitFor({ state: 'detached' });
    expect(await ada.api.get('/v1/organizations/{id}/webhooks', inOrg)).toEqual([]);
    expect([...problems.errors, ...phone.problems.errors]).toEqual([]);
  });

  /** The provider's login form as `login` (any password), then its consent form. */
  async function atProvider(page: Page, login: string): Promise<void> {
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  const ssoRequired = async (id: string) =>
    Boolean(
      (await t.rows<{ sso_required: unknown }>(sql`select sso_required from organizations where id = ${id}`))[0]
        ?.sso_required,
    );

  it('requires single sign-on: the password session is kept out but may turn it off; through the provider the page is whole', async () => {
    const { ada, org, inOrg } = await scene();
    const login = `ada-${randomBytes(4).toString('hex')}`;
    op.accounts.set(login, { email: ada.email, email_verified: true, name: 'Ada' });
    const { page, problems } = await browser.newPage(LAPTOP);
    await openConsoleWithToken(page, t.url, ada.api.token!, `/organizations/${org.id}`);
    await shown(
      page,
      '.sso-explained',
      'When it is required, the organization’s members sign in with Acme ID: members who signed in with a password are kept out of the organization and its workshops, as are personal API tokens made from such a sign-in. The organization’s own API tokens keep working.',
    );
    const sso = page.getByRole('form', { name: 'Single sign-on' });
    const turnOn = async () => {
      await sso.getByRole('checkbox', { name: 'Require single sign-on with Acme ID' }).check();
      await shown(page, '.sso .save-row .hint', 'Not saved yet.');
      await sso.getByRole('button', { name: 'Save' }).click();
      // Ada signed in with a password: her own session is kept out now, and told so.
      await shown(
        page,
        '.organization-kept-out .notice',
        'This organization requires its members to sign in with Acme ID. You signed in with a password, so this session is kept out of the organization and its workshops.',
      );
      expect(await ssoRequired(org.id)).toBe(true);
    };
    await turnOn();
    await expect(ada.api.get('/v1/organizations/{id}', inOrg)).rejects.toMatchObject({ code: 'sso_required' });
    await expectAccessible(page, 'an organization kept out by single sign-on');

    // The way out the service keeps for admins, whatever the sign-in.
    await page.getByRole('button', { name: 'Stop requiring single sign-on' }).click();
    await page.getByRole('button', { name: 'Stop requiring it' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acme Research' }).waitFor();
    expect(await ssoRequired(org.id)).toBe(false);
    expect((await ada.api.get('/v1/organizations/{id}', inOrg)).sso_required).toBe(false);

    // Required again, then signed in through the provider: the page is whole, the setting on.
    await turnOn();
    await page.getByRole('button', { name: 'Sign in with Acme ID' }).click();
    await atProvider(page, login);
    await page.getByRole('heading', { level: 1, name: 'Acme Research' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/organizations/${org.id}`);
    const box = sso.getByRole('checkbox', { name: 'Require single sign-on with Acme ID' });
    expect(await box.isChecked()).toBe(true);
    await expectAccessible(page, 'single sign-on required, signed in through the provider');
    await box.uncheck();
    await sso.getByRole('button', { name: 'Save' }).click();
    await shown(page, '.sso .save-row .done', 'Saved: single sign-on is not required.');
    expect(await ssoRequired(org.id)).toBe(false);
    expect((await ada.api.get('/v1/organizations/{id}', inOrg)).sso_required).toBe(false);
    expect(problems.errors).toEqual([]);
  });
});
