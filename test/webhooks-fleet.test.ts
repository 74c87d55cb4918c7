import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { startFleet, type Fleet } from './helpers/fleet';
import { listeningPort, serverCommand, startProcess, type ServerProcess } from './helpers/processes';
import { dropPostgresDatabase, freshPostgresDatabase, testStore } from './helpers/store';
import { until } from './helpers/wait';
import { startWebhookReceiver, type Received, type WebhookReceiver } from './helpers/webhook-receiver';

/*
 * Webhook deliveries across processes started as production starts them: an instance killed
 * with SIGKILL in the middle of a delivery loses nothing (another sends it again once the lease
 * ran out, with the same `webhook-id`), and three instances on one PostgreSQL send each event
 * once, in order per workshop (docs/integrations.md#retries-and-order).
 *
 * Among the slowest files (10 to 15 s on PostgreSQL): the instances are processes started as
 * production starts them (each importing the server from source), and after the SIGKILL the next
 * instance may send the delivery again only once its lease (1.5 s here) ran out.
 */

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE: '1',
  WEBHOOK_LEASE_MS: '1500',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
};

/** JSON over fetch: the routes are new to the SDK's generated client in this file's eyes. */
async function call<T>(base: string, method: string, path: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

let accounts = 0;

/** An organization's admin with an endpoint at the receiver, made through `base`. */
async function organizationWithEndpoint(base: string, receiver: WebhookReceiver) {
  const email = `admin-${process.pid}-${++accounts}@example.test`;
  const { token } = await call<{ token: string }>(base, 'POST', '/v1/auth/signup', undefined, {
    email,
    password: 'correct horse battery',
    name: 'Ada',
  });
  const organization = await call<{ id: string }>(base, 'POST', '/v1/organizations', token, { name: 'Acme' });
  const webhook = await call<{ id: string; secret: string }>(
    base,
    'POST',
    `/v1/organizations/${organization.id}/webhooks`,
    token,
    { url: receiver.url, events: ['workshop.created', 'workshop.updated'] },
  );
  receiver.trust(webhook.secret);
  const workshop = (title: string) =>
    call<{ id: string }>(base, 'POST', `/v1/organizations/${organization.id}/workshops`, token, { title });
  const rename = (at: string, id: string, title: string) => call(at, 'PUT', `/v1/workshops/${id}`, token, { title });
  return { token, organization, webhook, workshop, rename };
}

/** The titles the receiver was sent for one workshop, once per `webhook-id`, in arrival order. */
function titlesOf(receiver: WebhookReceiver, workshopId: string): string[] {
  const seen = new Set<string>();
  return receiver
    .delivered()
    .filter((r: Received) => (r.data.workshop as { id: string }).id === workshopId)
    .filter((r) => !seen.has(r.id) && !!seen.add(r.id))
    .map((r) => (r.data.workshop as { title: string }).title);
}

describe('an instance killed in the middle of a delivery', () => {
  let receiver: WebhookReceiver;
  let folder: string;
  let databaseUrl: string | undefined;
  const runs: ServerProcess[] = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    folder = mkdtempSync(join(tmpdir(), 'workshops-webhook-kill-'));
    if (testStore === 'postgres') databaseUrl = await freshPostgresDatabase();
  });
  beforeEach(() =>
    onTestFailed(() => {
      for (const run of runs) console.log(run.stdout().slice(-3000), run.stderr().slice(-3000));
    }),
  );
  afterAll(async () => {
    for (const run of runs) run.child.kill('SIGKILL');
    await receiver.close();
    rmSync(folder, { recursive: true, force: true });
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  });

  const secret = randomBytes(32).toString('hex');
  /** An instance on the same store as the one before it. */
  const start = async () => {
    const run = startProcess(serverCommand(), {
      PORT: '0',
      SECRET: secret,
      DATABASE_PATH: join(folder, 'workshops.db'),
      FILES_DIR: join(folder, 'files'),
      LOG_REQUESTS: '0',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...WEBHOOK_ENV,
    });
    runs.push(run);
    return { run, url: `http://127.0.0.1:${await listeningPort(run)}` };
  };

  it('loses nothing: the next instance sends it again, with the same webhook-id, and the rest in order', async () => {
    const first = await start();
    const admin = await organizationWithEndpoint(first.url, receiver);
    // The receiver takes its time: the instance dies while the first delivery is on the wire.
    receiver.answerWith(204, 2_000);
    const workshop = await admin.workshop('v0');
    for (let i = 1; i <= 3; i++) await admin.rename(first.url, workshop.id, `v${i}`);
    await until(() => receiver.attempts.length > 0 || receiver.pending() > 0, 'the first delivery on the wire', 10_000);
    first.run.child.kill('SIGKILL');
    await first.run.exited;
    receiver.answerWith(204);

    await start();
    await until(() => titlesOf(receiver, workshop.id).length === 4, 'every event delivered', 20_000);
    expect(titlesOf(receiver, workshop.id)).toEqual(['v0', 'v1', 'v2', 'v3']);
    // At least once: the attempt cut by the kill came again under the same webhook-id.
    const firstId = receiver.delivered()[0]!.id;
    await until(
      () => receiver.attempts.filter((r) => r.id === firstId).length >= 2,
      'the cut attempt and its repetition',
      10_000,
    );
    expect(new Set(receiver.delivered().map((r) => r.id)).size).toBe(4);
    expect(receiver.refused).toEqual([]);
  }, 60_000);
});

describe.skipIf(testStore !== 'postgres')('three instances on one PostgreSQL', () => {
  let receiver: WebhookReceiver;
  let databaseUrl: string;
  let fleet: Fleet;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    databaseUrl = await freshPostgresDatabase();
    fleet = await startFleet({ size: 3, env: { DATABASE_URL: databaseUrl, ...WEBHOOK_ENV } });
  }, 60_000);
  beforeEach(() => onTestFailed(() => console.log(fleet.logs())));
  afterAll(async () => {
    await fleet?.stop();
    await receiver?.close();
    if (databaseUrl) await dropPostgresDatabase(databaseUrl);
  });

  it('deliver each event once, in order per workshop, whichever instance made the change', async () => {
    const urls = fleet.instances.map((instance) => instance.url);
    const admin = await organizationWithEndpoint(urls[0]!, receiver);
    const workshops = await Promise.all([0, 1, 2].map((n) => admin.workshop(`w${n}-0`)));
    // Changes spread over the three instances, the workshops side by side.
    await Promise.all(
      workshops.map(async (workshop, n) => {
        for (let i = 1; i <= 10; i++) await admin.rename(urls[i % 3]!, workshop.id, `w${n}-${i}`);
      }),
    );
    await until(() => receiver.delivered().length >= 33, '33 deliveries', 20_000);
    for (const [n, workshop] of workshops.entries())
      expect(titlesOf(receiver, workshop.id)).toEqual(Array.from({ length: 11 }, (_, i) => `w${n}-${i}`));
    // Each event once: no delivery sent twice in the normal case.
    const ids = receiver.attempts.map((r) => r.id);
    expect(ids).toHaveLength(33);
    expect(new Set(ids).size).toBe(33);
  }, 60_000);
});
