import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { CreatedWebhookOutput, DeliveryOutput, WebhookOutput } from '../src/modules/webhooks/schemas';
import { Webhook } from 'standardwebhooks';
import { useServer } from './helpers/cast';
import { createConfirmedUser, expectError, type TestUser } from './helpers/factories';
import { startWebhookReceiver, type Received, type WebhookReceiver } from './helpers/webhook-receiver';
import { until } from './helpers/wait';

/** Polls `find` until it answers something; that something. */
async function found<T>(
  find: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  let value: T | undefined;
  await until(async () => (value = await find()) !== undefined, what, timeoutMs);
  return value!;
}

/*
 * Webhooks (docs/integrations.md#webhooks): endpoints an organization's admins register, events
 * written to the outbox in the change's transaction and delivered signed to the Standard Webhooks
 * specification, verified here by the `standardwebhooks` package; in order per workshop, retried
 * with the same `webhook-id`, visible in the deliveries list.
 */

const t = useServer({
  webhooks: {
    retryScheduleS: [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2],
    disableAfterHours: 72,
    allowPrivate: true,
    leaseMs: 60_000,
  },
});

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
});

interface Scene {
  admin: TestUser;
  organization: OrganizationOutput;
  webhook: CreatedWebhookOutput;
}

async function scene(events: string[] = ['*']): Promise<Scene> {
  const admin = await createConfirmedUser(t, 'Ada');
  const organization = (
    await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: admin.token, body: { name: 'Acme' } })
  ).body;
  const made = await t.request<CreatedWebhookOutput>('POST', `/v1/organizations/${organization.id}/webhooks`, {
    token: admin.token,
    body: { url: receiver.url, events, description: 'tracker' },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  receiver.trust(made.body.secret);
  return { admin, organization, webhook: made.body };
}

async function createWorkshop(s: Scene, title = 'Retro'): Promise<WorkshopOutput> {
  const res = await t.request<WorkshopOutput>('POST', `/v1/organizations/${s.organization.id}/workshops`, {
    token: s.admin.token,
    body: { title },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The deliveries received about one workshop, in arrival order. */
const about = (workshopId: string) => (r: Received) =>
  (r.data.workshop as { id?: string } | undefined)?.id === workshopId || r.data.workshop_id === workshopId;

async function deliveredAbout(workshopId: string, count: number): Promise<Received[]> {
  return found(() => {
    const got = receiver.delivered().filter(about(workshopId));
    return got.length >= count ? got : undefined;
  }, `${count} deliveries about ${workshopId}`);
}

describe('webhook endpoints', () => {
  it('are registered by admins, the secret shown once, and listed, changed and removed', async () => {
    const s = await scene(['workshop.created']);
    expect(s.webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(s.webhook).toMatchObject({
      url: receiver.url,
      events: ['workshop.created'],
      enabled: true,
      description: 'tracker',
    });
    const base = `/v1/organizations/${s.organization.id}/webhooks`;
    const listed = await t.request<WebhookOutput[]>('GET', base, { token: s.admin.token });
    expect(listed.body).toHaveLength(1);
    expect(JSON.stringify(listed.body)).not.toContain(s.webhook.secret);

    const changed = await t.request<WebhookOutput>('PUT', `${base}/${s.webhook.id}`, {
      token: s.admin.token,
      body: { events: ['workshop.created', 'workshop.deleted'], description: 'two' },
    });
    expect(changed.body).toMatchObject({ events: ['workshop.created', 'workshop.deleted'], description: 'two' });

    expectError(
      await t.request('POST', base, { token: s.admin.token, body: { url: 'ftp://x', events: ['*'] } }),
      400,
      'invalid_request',
    );
    expectError(
      await t.request('POST', base, { token: s.admin.token, body: { url: receiver.url, events: ['card.created'] } }),
      400,
      'invalid_request',
    );
    const outsider = await createConfirmedUser(t, 'Out');
    expectError(await t.request('GET', base, { token: outsider.token }), 404, 'not_found');
    await t.request('POST', `/v1/organizations/${s.organization.id}/members`, {
      token: s.admin.token,
      body: { email: outsider.email, role: 'facilitator' },
    });
    expectError(await t.request('GET', base, { token: outsider.token }), 403, 'forbidden');

    expect((await t.request('DELETE', `${base}/${s.webhook.id}`, { token: s.admin.token })).status).toBe(204);
    expectError(await t.request('GET', `${base}/${s.webhook.id}`, { token: s.admin.token }), 404, 'not_found');
  });

  it('deliver the workshop lifecycle signed, in order, with the data REST answers', async () => {
    const s = await scene();
    const workshop = await createWorkshop(s);
    const { id } = workshop;
    const step = (
      await t.request<{ id: string }>('POST', `/v1/workshops/${id}/steps`, {
        token: s.admin.token,
        body: { name: 'Vote' },
      })
    ).body;
    await t.request('PUT', `/v1/workshops/${id}`, { token: s.admin.token, body: { title: 'Retro Q4' } });
    await t.request('PUT', `/v1/workshops/${id}`, { token: s.admin.token, body: { current_step_id: step.id } });
    const { access_code } = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${id}/access_code`, { token: s.admin.token })
    ).body;
    const guest = await t.request<{ user: { id: string } }>('POST', '/v1/workshops/join/guest', {
      body: { access_code, name: 'Gus' },
    });
    await t.request('POST', `/v1/workshops/${id}/exports`, { token: s.admin.token, body: { type: 'csv' } });
    // The export's signed link works while the workshop does.
    const exported = (await deliveredAbout(id, 5))[4]!;
    expect(exported.type).toBe('export.succeeded');
    const url = (exported.data.export as { url: string }).url;
    expect(url).toMatch(/\/files\/exports\/.+signature=/);
    expect((await fetch(url)).status).toBe(200);
    await t.request('PUT', `/v1/workshops/${id}`, { token: s.admin.token, body: { state: 'archived' } });
    await t.request('PUT', `/v1/workshops/${id}`, { token: s.admin.token, body: { state: 'running' } });
    expect((await t.request('DELETE', `/v1/workshops/${id}`, { token: s.admin.token })).status).toBe(204);

    const got = await deliveredAbout(id, 9);
    const types = got.map((r) => r.type);
    expect(types).toEqual([
      'workshop.created',
      'workshop.updated',
      'workshop.step_changed',
      'member.joined',
      'export.succeeded',
      'workshop.updated',
      'workshop.archived',
      'workshop.updated',
      'workshop.deleted',
    ]);
    expect(new Set(got.map((r) => r.id)).size).toBe(got.length);
    expect(receiver.refused).toEqual([]);

    const [created, updated, stepped, joined] = got;
    const read = created!.data.workshop as WorkshopOutput;
    expect(read).toMatchObject({ id, title: 'Retro', owner: { id: s.organization.id } });
    expect(updated!.data).toMatchObject({ workshop: { title: 'Retro Q4' }, changes: { title: ['Retro', 'Retro Q4'] } });
    expect(stepped!.data).toMatchObject({
      workshop: { current_step_id: step.id },
      step: { id: step.id, name: 'Vote' },
    });
    expect(joined!.data).toMatchObject({
      workshop_id: id,
      member: { user_id: guest.body.user.id, name: 'Gus', role: 'participant', guest: true },
    });
    const body = JSON.parse(created!.body) as { type: string; timestamp: string; data: unknown };
    expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
    expect(Date.parse(body.timestamp)).not.toBeNaN();
  });

  it('send only the events an endpoint listens to, and nothing for a personal workshop', async () => {
    const s = await scene(['workshop.deleted']);
    const workshop = await createWorkshop(s, 'Only deletion');
    await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: s.admin.token, body: { title: 'x' } });
    await t.request('DELETE', `/v1/workshops/${workshop.id}`, { token: s.admin.token });
    const personal = (
      await t.request<WorkshopOutput>('POST', '/v1/workshops', { token: s.admin.token, body: { title: 'Mine' } })
    ).body;
    const got = await deliveredAbout(workshop.id, 1);
    expect(got.map((r) => r.type)).toEqual(['workshop.deleted']);
    const list = await t.request<DeliveryOutput[]>(
      'GET',
      `/v1/organizations/${s.organization.id}/webhooks/${s.webhook.id}/deliveries`,
      { token: s.admin.token },
    );
    expect(list.body.map((d) => d.event_type)).toEqual(['workshop.deleted']);
    expect(receiver.attempts.some(about(personal.id))).toBe(false);
  });
});

describe('deliveries', () => {
  it('are retried with the same webhook-id while the receiver fails, and arrive in order once it answers', async () => {
    const s = await scene(['workshop.created', 'workshop.updated']);
    receiver.answerWith(503);
    const workshop = await createWorkshop(s, 'v0');
    for (let i = 1; i <= 3; i++)
      await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: s.admin.token, body: { title: `v${i}` } });
    // The first event is tried again and again; the later ones wait behind it.
    await until(() => receiver.attempts.filter(about(workshop.id)).length >= 3, 'three attempts');
    const early = receiver.attempts.filter(about(workshop.id));
    expect(new Set(early.map((a) => a.id)).size).toBe(1);
    expect(early.every((a) => a.type === 'workshop.created')).toBe(true);

    const base = `/v1/organizations/${s.organization.id}/webhooks/${s.webhook.id}`;
    const pending = await t.request<DeliveryOutput[]>('GET', `${base}/deliveries`, { token: s.admin.token });
    const first = pending.body.at(-1)!;
    expect(first).toMatchObject({ event_type: 'workshop.created', status: 'pending', last_status_code: 503 });
    expect(first.attempts).toBeGreaterThanOrEqual(2);
    expect(first.last_error).toContain('503');

    receiver.answerWith(204);
    const got = await deliveredAbout(workshop.id, 4);
    expect(got.map((r) => (r.data.workshop as WorkshopOutput).title)).toEqual(['v0', 'v1', 'v2', 'v3']);
    expect(got[0]!.id).toBe(early[0]!.id);
    const done = await found(async () => {
      const list = (await t.request<DeliveryOutput[]>('GET', `${base}/deliveries`, { token: s.admin.token })).body;
      return list.every((d) => d.status === 'succeeded') ? list : undefined;
    }, 'every delivery succeeded');
    expect(done.map((d) => d.next_attempt_at)).toEqual([null, null, null, null]);
  });

  it('are given up after the schedule, and can be sent again', async () => {
    const s = await scene(['workshop.created']);
    receiver.answerWith(500);
    const workshop = await createWorkshop(s, 'given up');
    const base = `/v1/organizations/${s.organization.id}/webhooks/${s.webhook.id}`;
    const failed = await found(async () => {
      const [d] = (await t.request<DeliveryOutput[]>('GET', `${base}/deliveries`, { token: s.admin.token })).body;
      return d?.status === 'failed' ? d : undefined;
    }, 'the delivery given up');
    expect(failed.attempts).toBe(9);
    receiver.answerWith(204);
    const retried = await t.request<DeliveryOutput>('POST', `${base}/deliveries/${failed.id}/retry`, {
      token: s.admin.token,
    });
    expect(retried.body).toMatchObject({ id: failed.id, status: 'pending' });
    const [got] = await deliveredAbout(workshop.id, 1);
    expect(got!.id).toBe(failed.id);
    expectError(await t.request('POST', `${base}/deliveries/nope/retry`, { token: s.admin.token }), 404, 'not_found');
  });

  it('carry both signatures after a rotation, each verifying with its own secret', async () => {
    const s = await scene(['ping']);
    const base = `/v1/organizations/${s.organization.id}/webhooks/${s.webhook.id}`;
    const rotated = await t.request<{ secret: string }>('POST', `${base}/rotate_secret`, { token: s.admin.token });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(s.webhook.secret);
    receiver.trust(rotated.body.secret);
    const ping = await t.request<DeliveryOutput>('POST', `${base}/test`, { token: s.admin.token });
    expect(ping.status).toBe(201);
    expect(ping.body).toMatchObject({ event_type: 'ping', status: 'pending', webhook_id: s.webhook.id });
    const got = await found(() => receiver.delivered().find((r) => r.id === ping.body.id), 'the ping');
    expect(got.signature.split(' ')).toHaveLength(2);
    expect(got.data).toEqual({ webhook_id: s.webhook.id, organization_id: s.organization.id });
  });

  it('keep each secret two rotations at once answered: the later carries the earlier as its previous', async () => {
    const s = await scene(['ping']);
    const base = `/v1/organizations/${s.organization.id}/webhooks/${s.webhook.id}`;
    const both = await Promise.all(
      [1, 2].map(
        async () =>
          (await t.request<{ secret: string }>('POST', `${base}/rotate_secret`, { token: s.admin.token })).body.secret,
      ),
    );
    const ping = await t.request<DeliveryOutput>('POST', `${base}/test`, { token: s.admin.token });
    for (const secret of both) receiver.trust(secret);
    const got = await found(() => receiver.delivered().find((r) => r.id === ping.body.id), 'the ping');
    // Each secret handed out verifies the delivery on its own: neither rotation lost the other's.
    for (const secret of both)
      expect(() =>
        new Webhook(secret).verify(got.body, {
          'webhook-id': got.id,
          'webhook-timestamp': got.timestamp,
          'webhook-signature': got.signature,
        }),
      ).not.toThrow();
  });

  it('are counted in /metrics, with the outbox depth', async () => {
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/workshops_webhook_deliveries_total\{outcome="succeeded"\} [1-9]/);
    expect(metrics).toMatch(/workshops_webhook_deliveries_total\{outcome="retried"\} [1-9]/);
    expect(metrics).toMatch(/workshops_webhook_outbox_depth \d+/);
  });
});
