import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { CreatedWebhookOutput, DeliveryOutput, WebhookOutput } from '../src/modules/webhooks/schemas';
import { useServer } from './helpers/cast';
import { createConfirmedUser, expectError, type TestUser } from './helpers/factories';
import type { TestServer } from './helpers/server';
import { until } from './helpers/wait';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

/*
 * Webhooks when things go wrong (docs/integrations.md#retries-and-order): a receiver whose port
 * is closed for a while, an endpoint failing long enough to be disabled (its admins mailed), a
 * slow receiver that holds no request, addresses that are not public; and `participation.completed`.
 */

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

async function found<T>(find: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  let value: T | undefined;
  await until(async () => (value = await find()) !== undefined, what, 10_000);
  return value!;
}

interface Scene {
  admin: TestUser;
  organization: OrganizationOutput;
  webhook: CreatedWebhookOutput;
  base: string;
}

async function scene(t: TestServer, events: string[], url = receiver.url): Promise<Scene> {
  const admin = await createConfirmedUser(t, 'Ada');
  const organization = (
    await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: admin.token, body: { name: 'Acme' } })
  ).body;
  const base = `/v1/organizations/${organization.id}/webhooks`;
  const made = await t.request<CreatedWebhookOutput>('POST', base, { token: admin.token, body: { url, events } });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  receiver.trust(made.body.secret);
  return { admin, organization, webhook: made.body, base: `${base}/${made.body.id}` };
}

const workshopIn = async (t: TestServer, s: Scene, title: string) =>
  (
    await t.request<WorkshopOutput>('POST', `/v1/organizations/${s.organization.id}/workshops`, {
      token: s.admin.token,
      body: { title },
    })
  ).body;

const deliveries = async (t: TestServer, s: Scene) =>
  (await t.request<DeliveryOutput[]>('GET', `${s.base}/deliveries`, { token: s.admin.token })).body;

describe('a receiver that is away', () => {
  const t = useServer({
    webhooks: { retryScheduleS: Array(20).fill(0.2), disableAfterHours: 72, allowPrivate: true, leaseMs: 60_000 },
  });

  it('gets every event once it is back, in order, the first under the webhook-id it was first tried with', async () => {
    const s = await scene(t, ['workshop.created', 'workshop.updated']);
    await receiver.down();
    const workshop = await workshopIn(t, s, 'a0');
    await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: s.admin.token, body: { title: 'a1' } });
    const refused = await found(async () => {
      const [, first] = await deliveries(t, s);
      return first && first.attempts >= 2 ? first : undefined;
    }, 'two refused attempts');
    expect(refused).toMatchObject({ status: 'pending', last_status_code: null, event_type: 'workshop.created' });
    expect(refused.last_error).toMatch(/ECONNREFUSED/);

    await receiver.up();
    const got = await found(() => {
      const about = receiver.delivered().filter((r) => (r.data.workshop as WorkshopOutput).id === workshop.id);
      return about.length >= 2 ? about : undefined;
    }, 'both events');
    expect(got.map((r) => (r.data.workshop as WorkshopOutput).title)).toEqual(['a0', 'a1']);
    expect(got[0]!.id).toBe(refused.id);
  });

  it('holds no request: the change is answered while its delivery is still on the wire', async () => {
    const s = await scene(t, ['workshop.updated']);
    const workshop = await workshopIn(t, s, 'slow');
    receiver.answerWith(204, 1_500);
    try {
      await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: s.admin.token, body: { title: 'slow 1' } });
      await until(() => receiver.pending() > 0, 'the delivery on the wire');
      // Another change is answered while the receiver still holds the first delivery.
      const res = await t.request('PUT', `/v1/workshops/${workshop.id}`, {
        token: s.admin.token,
        body: { title: 'slow 2' },
      });
      expect(res.status).toBe(200);
      expect(receiver.pending()).toBeGreaterThan(0);
    } finally {
      receiver.answerWith(204);
    }
  });

  it('tells an organization that every participant has voted, once per step', async () => {
    const s = await scene(t, ['participation.completed']);
    const workshop = await workshopIn(t, s, 'vote');
    const id = workshop.id;
    const cluster = (
      await t.request<{ id: string }>('POST', `/v1/workshops/${id}/cards`, {
        token: s.admin.token,
        body: { type: 'cluster', title: 'All' },
      })
    ).body;
    const idea = (
      await t.request<{ id: string }>('POST', `/v1/workshops/${id}/cards`, {
        token: s.admin.token,
        body: { type: 'idea', title: 'One', parent: cluster.id },
      })
    ).body;
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${id}/access_code`, { token: s.admin.token })
    ).body;
    const guests = await Promise.all(
      ['Gus', 'Gil'].map(
        async (name) =>
          (await t.request<{ token: string }>('POST', '/v1/workshops/join/guest', { body: { access_code, name } }))
            .body,
      ),
    );
    const vote = (token: string) =>
      t.request('POST', `/v1/workshops/${id}/cards/${idea.id}/votes`, { token, body: { value: 1 } });
    expect((await vote(guests[0]!.token)).status).toBe(201);
    expect((await vote(guests[1]!.token)).status).toBe(201);
    expect((await vote(guests[1]!.token)).status).toBe(201);
    const got = await found(
      () => receiver.delivered().find((r) => r.type === 'participation.completed' && r.data.workshop_id === id),
      'participation.completed',
    );
    expect(got.data.participation).toMatchObject({ participants: 2, voted_any: 2 });
    await until(async () => (await deliveries(t, s)).every((d) => d.status === 'succeeded'), 'the delivery recorded');
    expect((await deliveries(t, s)).map((d) => d.event_type)).toEqual(['participation.completed']);
  });
});

describe('an endpoint failing for long', () => {
  const t = useServer({
    // About a second of failing disables it.
    webhooks: { retryScheduleS: Array(30).fill(0.2), disableAfterHours: 0.0003, allowPrivate: true, leaseMs: 60_000 },
  });

  it('is disabled, its pending deliveries given up and its admins mailed; enabled again, a delivery can be resent', async () => {
    const s = await scene(t, ['workshop.created']);
    receiver.answerWith(500);
    try {
      await workshopIn(t, s, 'down');
      const disabled = await found(async () => {
        const endpoint = (await t.request<WebhookOutput>('GET', s.base, { token: s.admin.token })).body;
        return endpoint.enabled ? undefined : endpoint;
      }, 'the endpoint disabled');
      expect(disabled.disabled_at).not.toBeNull();
      const [given] = await deliveries(t, s);
      expect(given).toMatchObject({ status: 'failed', last_error: 'The endpoint was disabled.' });
      const mail = await t.rows<{ subject: string; text: string }>(
        sql`SELECT subject, text FROM outbox WHERE "to" = ${s.admin.email} AND subject LIKE 'A webhook%'`,
      );
      expect(mail).toHaveLength(1);
      expect(mail[0]!.subject).toBe('A webhook endpoint was disabled');
      expect(mail[0]!.text).toContain(receiver.url);
      expectError(await t.request('POST', `${s.base}/test`, { token: s.admin.token }), 409, 'conflict');
    } finally {
      receiver.answerWith(204);
    }

    const enabled = await t.request<WebhookOutput>('PUT', s.base, { token: s.admin.token, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_at: null });
    const [given] = await deliveries(t, s);
    await t.request('POST', `${s.base}/deliveries/${given!.id}/retry`, { token: s.admin.token });
    await found(() => receiver.delivered().find((r) => r.id === given!.id), 'the resent delivery');
  });
});

describe('addresses that are not public', () => {
  const t = useServer({
    webhooks: { retryScheduleS: [0.2], disableAfterHours: 72, allowPrivate: false, leaseMs: 60_000 },
  });

  it('are refused when registered, and when a name resolves to one at delivery time, saying only that the address is not allowed, never what the name resolved to', async () => {
    const admin = await createConfirmedUser(t, 'Ada');
    const organization = (
      await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: admin.token, body: { name: 'Acme' } })
    ).body;
    const base = `/v1/organizations/${organization.id}/webhooks`;
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://[::1]/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/',
    ])
      expectError(
        await t.request('POST', base, { token: admin.token, body: { url, events: ['ping'] } }),
        400,
        'invalid_request',
      );
    // A name is judged on the connection's own lookup: a public-looking name whose records later
    // point inside (here `localhost`, written in place of what was registered) is refused then.
    const port = new URL(receiver.url).port;
    const made = await t.request<CreatedWebhookOutput>('POST', base, {
      token: admin.token,
      body: { url: 'https://hooks.example.com/x', events: ['ping'] },
    });
    expect(made.status).toBe(201);
    const pings: DeliveryOutput[] = [];
    for (const url of [`http://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`]) {
      await t.write(sql`UPDATE webhook_endpoints SET url = ${url} WHERE id = ${made.body.id}`);
      const ping = (await t.request<DeliveryOutput>('POST', `${base}/${made.body.id}/test`, { token: admin.token }))
        .body;
      pings.push(
        await found(async () => {
          const list = (
            await t.request<DeliveryOutput[]>('GET', `${base}/${made.body.id}/deliveries`, { token: admin.token })
          ).body;
          const d = list.find((one) => one.id === ping.id);
          return d && d.status !== 'pending' ? d : undefined;
        }, `the ping to ${url} given up`),
      );
    }
    for (const ping of pings) {
      expect(ping).toMatchObject({ status: 'failed', last_status_code: null });
      expect(ping.last_error).toBe('The address is not allowed: it is not public.');
      expect(receiver.attempts.some((r) => r.id === ping.id)).toBe(false);
    }
  });
});
