import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { and, count, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import { nowIso } from '../src/db/columns';
import { useCast, useDocs, useRedis, useServer, useSockets } from './helpers/cast';
import { errorOf, expectError, seedCard, seedCardScene, seedWorkshop, seedWorkshopWith } from './helpers/factories';
import { holdWriteLock } from './helpers/locks';
import { openPeer, peerOrSkip } from './helpers/netns';
import { scrape, Scrape } from './helpers/prometheus';
import { redisAvailable } from './helpers/redis';
import { until } from './helpers/wait';

const REQUESTS = 'workshops_http_requests_total';
const DURATION = 'workshops_http_request_duration_seconds';
const SOCKETS = 'workshops_socketio_connections';
const ROOMS = 'workshops_socketio_workshop_rooms';
const LIVE_EVENTS = 'workshops_live_events_sent_total';
const SYNC_CONNECTIONS = 'workshops_sync_connections';
const DOCUMENTS = 'workshops_sync_documents_loaded';
const SYNC_BACKLOG = 'workshops_sync_backlog';
const TRANSACTIONS = 'workshops_db_transactions_total';
const LOCK_WAIT = 'workshops_db_lock_wait_seconds';
const MAIL_QUEUE = 'workshops_mail_queue_depth';
const EXPORT_QUEUE = 'workshops_export_queue_depth';
const REDIS_UP = 'workshops_redis_up';

const cast = useCast();
const { t, facilitator, participant, other, stranger } = cast;
const sockets = useSockets(t);
const docs = useDocs(t);

describe('GET /metrics', () => {
  it("serves the process's metrics (event loop, heap, GC) beside the service's own, in the Prometheus text format", async () => {
    const s = await scrape(t.url);
    expect(s.family('nodejs_eventloop_lag_p99_seconds').type).toBe('GAUGE');
    expect(s.family('nodejs_gc_duration_seconds').type).toBe('HISTOGRAM');
    expect(s.value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(s.family(DURATION).type).toBe('HISTOGRAM');
    expect(s.family(LOCK_WAIT).type).toBe('HISTOGRAM');
    for (const name of [REQUESTS, LIVE_EVENTS, TRANSACTIONS]) expect(s.family(name).type).toBe('COUNTER');
    // The 503s answered are the request counter's status="503" series, not a second counter of their own.
    expect(s.text).not.toContain('workshops_http_unavailable_total');
    for (const name of [SOCKETS, ROOMS, SYNC_CONNECTIONS, SYNC_BACKLOG, DOCUMENTS, MAIL_QUEUE, EXPORT_QUEUE, REDIS_UP])
      expect(s.family(name).type).toBe('GAUGE');
    // One family per name: the process's metrics are not repeated per app.
    expect(s.text.match(/^# TYPE nodejs_heap_size_used_bytes /gm)).toHaveLength(1);
  });

  it('counts each request by method, route template and status, and times it', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    const seen = { method: 'GET', route: '/v1/workshops/:id', status: '200' };
    const hidden = { ...seen, status: '404' };
    const unauthenticated = { ...seen, status: '401' };
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    const before = await scrape(t.url);

    expect((await t.request('GET', `/v1/workshops/${w.id}`, { token: participant.token })).status).toBe(200);
    expect((await t.request('GET', `/v1/workshops/${w.id}`, { token: stranger.token })).status).toBe(404);
    // Refused by the authentication middleware: still counted under the route it asked for.
    expect((await t.request('GET', `/v1/workshops/${w.id}`)).status).toBe(401);
    expect((await t.request('GET', `/no/such/path/${w.id}`)).status).toBe(404);

    const after = await scrape(t.url);
    const grew = (name: string, labels: Record<string, string>, read: 'value' | 'count' = 'value') =>
      after[read](name, labels) - before[read](name, labels);
    expect(grew(REQUESTS, seen)).toBe(1);
    expect(grew(DURATION, seen, 'count')).toBe(1);
    expect(grew(REQUESTS, hidden)).toBe(1);
    expect(grew(REQUESTS, unauthenticated)).toBe(1);
    expect(grew(REQUESTS, unmatched)).toBe(1);
    expect(grew(DURATION, unmatched, 'count')).toBe(1);
    expect(after.sum(DURATION, seen)).toBeGreaterThan(before.sum(DURATION, seen));
    expect(after.bucket(DURATION, seen, '+Inf')).toBe(after.count(DURATION, seen));
  });

  it('counts the 503s answered, and the lock wait that made them', async () => {
    const w = await seedWorkshop(t, facilitator);
    const cards = { method: 'POST', route: '/v1/workshops/:workshop_id/cards', status: '503' };
    // SQLite's single writer, or PostgreSQL's lock on the workshop's row.
    const lock = { lock: t.deps.database.dialect === 'sqlite' ? 'writer' : 'workshop_row' };
    const before = await scrape(t.url);
    const held = await holdWriteLock(t, { table: 'workshops', column: 'id', value: w.id });
    try {
      const res = await t.request('POST', `/v1/workshops/${w.id}/cards`, {
        token: facilitator.token,
        body: { type: 'cluster', title: 'Blocked' },
      });
      expectError(res, 503, 'service_unavailable');
    } finally {
      await held.release();
    }
    const after = await scrape(t.url);
    expect(after.value(REQUESTS, cards) - before.value(REQUESTS, cards)).toBe(1);
    // The wait given up on (about a second) is in the lock's histogram.
    expect(after.sum(LOCK_WAIT, lock) - before.sum(LOCK_WAIT, lock)).toBeGreaterThan(0.9);
  });

  it('follows the open Socket.IO connections and the workshops they joined', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    const before = await scrape(t.url);
    const pat = await sockets.connected(participant);
    const connected = await scrape(t.url);
    expect(connected.value(SOCKETS)).toBe(before.value(SOCKETS) + 1);
    expect(connected.value(ROOMS)).toBe(before.value(ROOMS));

    expect((await pat.join(w.id)).ok).toBe(true);
    const joined = await scrape(t.url);
    expect(joined.value(ROOMS)).toBe(before.value(ROOMS) + 1);

    // A second member in the same workshop is a second connection in the same room.
    const fay = await sockets.joined(facilitator, w.id);
    const both = await scrape(t.url);
    expect(both.value(SOCKETS)).toBe(before.value(SOCKETS) + 2);
    expect(both.value(ROOMS)).toBe(before.value(ROOMS) + 1);

    pat.close();
    fay.close();
    await until(async () => (await scrape(t.url)).value(SOCKETS) === before.value(SOCKETS), 'the connections to close');
    expect((await scrape(t.url)).value(ROOMS)).toBe(before.value(ROOMS));
  });

  it('counts the live events a vote sends and the transaction that wrote it', async () => {
    const { workshop, card: cluster } = await seedCardScene(cast, 'votes');
    const idea = await seedCard(t, workshop.id, participant, { parentId: cluster.id });
    const watcher = await sockets.joined(facilitator, workshop.id);
    const scoreChanged = { event: 'score:changed' };
    const committed = { kind: 'write', outcome: 'commit' };
    // SQLite's single writer, or PostgreSQL's pooled connection (a vote batch takes the workshops'
    // rows with SKIP LOCKED, which never waits).
    const lock = { lock: t.deps.database.dialect === 'sqlite' ? 'writer' : 'connection' };
    const before = await scrape(t.url);

    const voted = await t.request('POST', `/v1/workshops/${workshop.id}/cards/${idea.id}/votes`, {
      token: participant.token,
      body: { value: 1 },
    });
    expect(voted.status).toBe(201);
    await watcher.next('score:changed');

    await until(
      async () => (await scrape(t.url)).value(LIVE_EVENTS, scoreChanged) > before.value(LIVE_EVENTS, scoreChanged),
      'the live event to be counted',
    );
    const after = await scrape(t.url);
    expect(after.value(TRANSACTIONS, committed)).toBeGreaterThan(before.value(TRANSACTIONS, committed));
    expect(after.count(LOCK_WAIT, lock)).toBeGreaterThan(before.count(LOCK_WAIT, lock));
  });

  it('counts a transaction rolled back', async () => {
    const rolledBack = { kind: 'write', outcome: 'rollback' };
    const before = await scrape(t.url);
    await expect(
      t.write(async () => {
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const after = await scrape(t.url);
    expect(after.value(TRANSACTIONS, rolledBack)).toBe(before.value(TRANSACTIONS, rolledBack) + 1);
  });

  it('follows the open sync connections and the documents loaded', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant]);
    const before = await scrape(t.url);
    const client = await docs.synced(w.id, participant);
    const synced = await scrape(t.url);
    expect(synced.value(SYNC_CONNECTIONS)).toBe(before.value(SYNC_CONNECTIONS) + 1);
    expect(synced.value(DOCUMENTS)).toBe(before.value(DOCUMENTS) + 1);
    client.destroy();
    await until(
      async () => (await scrape(t.url)).value(SYNC_CONNECTIONS) === before.value(SYNC_CONNECTIONS),
      'the sync connection to close',
    );
  });

  it('reads the mail and export queues from the database', async () => {
    const w = await seedWorkshop(t, facilitator);
    const before = await scrape(t.url);
    const now = nowIso();
    await t.write(async (tx, { outbox, workshopExports }) => {
      await tx.insert(outbox).values([
        { to: 'queued-1@example.test', subject: 'Waiting', text: '…' },
        {
          to: 'queued-2@example.test',
          subject: 'Waiting for a retry',
          text: '…',
          attempts: 2,
          nextAttemptAt: '2999-01-01T00:00:00.000Z',
        },
        { to: 'sent@example.test', subject: 'Sent', text: '…', sentAt: now },
        { to: 'failed@example.test', subject: 'Given up', text: '…', failedAt: now },
      ]);
      // Leased far ahead, so no runner takes it while the test looks.
      await tx.insert(workshopExports).values([
        { workshopId: w.id, type: 'csv', requestedBy: facilitator.id, leaseUntil: '2999-01-01T00:00:00.000Z' },
        { workshopId: w.id, type: 'csv', requestedBy: facilitator.id, state: 'success' },
      ]);
    });
    const after = await scrape(t.url);
    expect(after.value(MAIL_QUEUE) - before.value(MAIL_QUEUE)).toBe(2);
    expect(after.value(EXPORT_QUEUE) - before.value(EXPORT_QUEUE)).toBe(1);
    // Without SMTP the signups' confirmation mails wait in the outbox too.
    const { outbox } = t.tables;
    const [waiting] = await t.db
      .select({ n: count() })
      .from(outbox)
      .where(and(isNull(outbox.sentAt), isNull(outbox.failedAt)));
    expect(after.value(MAIL_QUEUE)).toBe(waiting!.n);
  });

  it('reports no Redis connection without REDIS_URL', async () => {
    expect((await scrape(t.url)).samples(REDIS_UP)).toEqual([]);
  });

  it('never puts an id, a token or an e-mail address in a label', async () => {
    const w = await seedWorkshopWith(t, facilitator, [participant, other]);
    const card = await seedCard(t, w.id, participant, { type: 'cluster' });
    const people = [facilitator, participant, other, stranger];
    // Paths carrying ids, tokens and addresses: matched, refused and unmatched, with an odd method too.
    await t.request('GET', `/v1/workshops/${w.id}/cards/${card.id}`, { token: participant.token });
    await t.request('GET', `/v1/workshops/${w.id}/cards/${card.id}`, { token: stranger.token });
    await t.request('GET', `/v1/workshops/${participant.email}`, { token: participant.token });
    await t.request('GET', `/invitations/${participant.token}`);
    await t.request('GET', `/${other.email}/${other.token}/${card.id}`);
    await fetch(`${t.url}/v1/workshops/${w.id}?token=${participant.token}`, { method: 'PROPFIND' });
    const client = await sockets.joined(participant, w.id);
    client.close();

    const s = await scrape(t.url);
    expect(
      s.value(REQUESTS, { method: 'GET', route: '/v1/workshops/:workshop_id/cards/:id', status: '200' }),
    ).toBeGreaterThan(0);
    expect(s.value(REQUESTS, { method: 'GET', route: '/invitations/:token', status: '200' })).toBeGreaterThan(0);
    expect(s.samples(REQUESTS, { method: 'other', route: 'unmatched' })).not.toEqual([]);
    const secrets = [w.id, card.id, ...people.flatMap((person) => [person.id, person.token, person.email])];
    for (const secret of secrets) expect(s.text).not.toContain(secret);
    // An id or token is a long run of base64url characters; a long name in snake case (Node 24's
    // `shared_trusted_large_object` heap space) is not one.
    const idLike = (value: string) =>
      /@|[0-9a-f]{16,}/.test(value) ||
      value.split(/[^A-Za-z0-9_-]+/).some((run) => run.length >= 22 && !/^[a-z_]+$/.test(run));
    for (const { series, label, value } of s.labelValues())
      expect(idLike(value), `${series}{${label}}: ${value}`).toBe(false);
  });
});

describe('who may read /metrics', () => {
  /** The app on `t`'s deps, asked as if over a socket from `remoteAddress`. */
  const fromPeer = (app: ReturnType<typeof createApp>, remoteAddress: string, headers: Record<string, string> = {}) =>
    app.request('/metrics', { headers }, { incoming: { socket: { remoteAddress } } });

  it('answers loopback peers without a token: 127.0.0.0/8, ::1 and IPv4 loopback written as IPv6', async () => {
    const app = createApp(t.deps);
    for (const address of ['127.0.0.1', '127.45.0.9', '::1', '::ffff:127.0.0.1']) {
      const res = await fromPeer(app, address);
      expect(res.status, address).toBe(200);
      new Scrape(await res.text());
    }
  });

  it('refuses every other peer with 403, whatever the proxy headers claim, even with TRUST_PROXY', async () => {
    const app = createApp({ ...t.deps, config: { ...t.deps.config, trustProxy: 'forwarded' } });
    for (const address of ['192.0.2.10', '10.0.0.1', '::ffff:10.0.0.1', 'fd00::1', '0.0.0.0', '::']) {
      const res = await fromPeer(app, address, {
        'x-forwarded-for': '127.0.0.1',
        'fly-client-ip': '127.0.0.1',
        'x-real-ip': '::1',
      });
      const body = { status: res.status, body: await res.json() };
      expectError(body, 403, 'forbidden');
    }
  });

  it('with TRUST_PROXY, answers a loopback peer only when the client its proxy names is loopback too', async () => {
    // A proxy on this host: every client's socket comes from loopback, the client is in the header.
    const forwarded = createApp({ ...t.deps, config: { ...t.deps.config, trustProxy: 'forwarded' } });
    for (const [peer, headers] of [
      ['127.0.0.1', { 'x-forwarded-for': '203.0.113.7' }],
      ['::1', { 'x-forwarded-for': '127.0.0.1, 2001:db8::7' }],
      ['127.0.0.1', { 'x-forwarded-for': '10.0.0.1' }],
    ] as const) {
      const res = await fromPeer(forwarded, peer, headers);
      expectError({ status: res.status, body: await res.json() }, 403, 'forbidden');
    }
    // A scraper on this host, straight or through the proxy.
    expect((await fromPeer(forwarded, '127.0.0.1')).status).toBe(200);
    expect((await fromPeer(forwarded, '127.0.0.1', { 'x-forwarded-for': '203.0.113.7, 127.0.0.1' })).status).toBe(200);

    const fly = createApp({ ...t.deps, config: { ...t.deps.config, trustProxy: 'fly' } });
    const viaFly = await fromPeer(fly, '127.0.0.1', { 'fly-client-ip': '203.0.113.7', 'x-forwarded-for': '127.0.0.1' });
    expectError({ status: viaFly.status, body: await viaFly.json() }, 403, 'forbidden');
    // Without TRUST_PROXY the headers are the client's to write: the peer alone decides.
    expect((await fromPeer(createApp(t.deps), '127.0.0.1', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
  });

  describe('over a real interface other than loopback', () => {
    // A network namespace of this test's own, joined to the host by a veth pair: a peer that is not
    // loopback on any machine, a second interface or not (root and iproute2; REQUIRE_NETNS=1 in CI).
    let opened: Awaited<ReturnType<typeof openPeer>> | undefined;
    beforeAll(async () => {
      opened = await openPeer();
    });
    afterAll(async () => {
      if (opened && !('unavailable' in opened)) await opened.close();
    });

    it('refuses a client reaching the server through another interface than loopback', async (context) => {
      const peer = peerOrSkip(opened, context);
      const server = serve({ fetch: createApp(t.deps).fetch, hostname: peer.hostAddress, port: 0 });
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      const { port } = server.address() as AddressInfo;
      try {
        // The same server answers other routes to that peer: it is the peer, not the path, that is refused.
        expect((await peer.fetchFrom(`http://${peer.hostAddress}:${port}/health`)).status).toBe(200);
        expectError(await peer.fetchFrom(`http://${peer.hostAddress}:${port}/metrics`), 403, 'forbidden');
        // Whatever the client claims in a header.
        expectError(
          await peer.fetchFrom(`http://${peer.hostAddress}:${port}/metrics`, {
            'x-forwarded-for': '127.0.0.1',
            'x-real-ip': '::1',
          }),
          403,
          'forbidden',
        );
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('with METRICS_TOKEN', () => {
    const TOKEN = 'scrape-me-6f1c2a9d0b7e4c35';
    const guarded = useServer({ metricsToken: TOKEN });

    it('answers 401 without the token, even to loopback peers, and with a wrong one', async () => {
      const attempts: Array<Record<string, string>> = [
        {},
        { authorization: 'Bearer scrape-me-6f1c2a9d0b7e4c36' },
        { authorization: 'Bearer scrape-me' },
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: `Basic ${Buffer.from(`metrics:${TOKEN}`).toString('base64')}` },
        { authorization: TOKEN },
      ];
      for (const headers of attempts) {
        const res = await guarded.request('GET', '/metrics', { headers });
        expectError(res, 401, 'unauthenticated');
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(errorOf(res).message).not.toContain(TOKEN);
      }
    });

    it('answers 200 with the token, from any peer', async () => {
      const s = await scrape(guarded.url, { authorization: `Bearer ${TOKEN}` });
      expect(s.family(REQUESTS).type).toBe('COUNTER');
      const res = await fromPeer(createApp(guarded.deps), '192.0.2.10', { authorization: `bearer ${TOKEN}` });
      expect(res.status).toBe(200);
    });
  });
});

describe.skipIf(!redisAvailable)('Redis state', () => {
  const redis = useRedis();
  const r = useServer(() => ({ redisUrl: redis.url }));
  const realtime = { connection: 'realtime' };

  it('reports each Redis connection up or down, and /ready follows it', async () => {
    await until(async () => (await scrape(r.url)).value(REDIS_UP, realtime) === 1, 'the realtime connection to be up');
    expect((await r.request('GET', '/ready')).status).toBe(200);

    await redis.stop();
    await until(
      async () => (await scrape(r.url)).value(REDIS_UP, realtime) === 0,
      'the realtime connection to be down',
    );
    expectError(await r.request('GET', '/ready'), 503, 'service_unavailable');

    await redis.start();
    await until(
      async () => (await r.request('GET', '/ready')).status === 200,
      'the instance to be ready again',
      10_000,
    );
    expect((await scrape(r.url)).value(REDIS_UP, realtime)).toBe(1);
  });
});
