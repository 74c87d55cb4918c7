import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, count, eq } from 'drizzle-orm';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import { testConfig, type Config } from '../src/config';
import { createDeps } from '../src/create-deps';
import type { AppDeps } from '../src/deps';
import { signup } from '../src/modules/auth/service';
import { dropPostgresDatabase, freshPostgresDatabase, testStore } from './helpers/store';
import { answeredBeyond503 } from './helpers/wait';

/*
 * The export caps (docs/configuration.md#limits-across-instances: per workshop and per user) under
 * concurrent requests from three instances on one store. These instances serve the REST app alone,
 * without the export runner `createServer` starts, so no export is made (freeing its place) while
 * the requests are in flight: what is pending afterwards is exactly what the caps let in.
 */

interface Instances {
  deps: AppDeps[];
  request(instance: number, method: string, path: string, token: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** `count` apps on one fresh store, each behind an HTTP server of its own (no realtime, no runners). */
async function instancesOnOneStore(count: number, overrides: Partial<Config>): Promise<Instances> {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-caps-'));
  const databaseUrl = testStore === 'postgres' ? await freshPostgresDatabase() : undefined;
  const shared = {
    databasePath: join(dir, 'test.db'),
    databaseUrl,
    filesDir: join(dir, 'files'),
    secret: randomBytes(32).toString('hex'),
  };
  const deps: AppDeps[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];
  for (let n = 0; n < count; n++) {
    const instance = await createDeps(testConfig({ ...shared, ...overrides }));
    const server = serve({ fetch: createApp(instance).fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await once(server, 'listening');
    deps.push(instance);
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return {
    deps,
    request: (instance, method, path, token, body) =>
      fetch(`${urls[instance]}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    async close() {
      for (const [n, server] of servers.entries()) {
        await new Promise((done) => server.close(done));
        deps[n]!.attempts.close();
        await deps[n]!.collab.close();
        await deps[n]!.database.close();
      }
      if (databaseUrl) await dropPostgresDatabase(databaseUrl);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('export caps on three instances at once', () => {
  let instances: Instances;
  beforeAll(async () => {
    instances = await instancesOnOneStore(3, { pendingExportsPerWorkshop: 5, pendingExportsPerUser: 4 });
  });
  afterAll(() => instances?.close());

  const facilitator = async (name: string) =>
    signup(instances.deps[0]!, {
      email: `${name}-${randomBytes(4).toString('hex')}@example.test`,
      password: 'correct horse battery',
      name,
    });
  const newWorkshop = async (token: string) => {
    const res = await instances.request(0, 'POST', '/v1/workshops', token, { title: 'Exported' });
    const body = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(body)).toBe(201);
    return body.id;
  };
  const requestExport = (instance: number, workshopId: string, token: string) =>
    answeredBeyond503(() =>
      instances.request(instance % 3, 'POST', `/v1/workshops/${workshopId}/exports`, token, { type: 'csv' }),
    );
  const pendingOf = async (where: { workshopId?: string; userId?: string }) => {
    const { db } = instances.deps[0]!.database;
    const { workshopExports } = db._.fullSchema;
    const conditions = [eq(workshopExports.state, 'pending')];
    if (where.workshopId) conditions.push(eq(workshopExports.workshopId, where.workshopId));
    if (where.userId) conditions.push(eq(workshopExports.requestedBy, where.userId));
    return (
      await db
        .select({ n: count() })
        .from(workshopExports)
        .where(and(...conditions))
    )[0]!.n;
  };
  const statuses = async (answers: Response[]) => {
    const seen = await Promise.all(answers.map(async (res) => ({ status: res.status, body: await res.text() })));
    return { sorted: seen.map((answer) => answer.status).sort(), seen: JSON.stringify(seen) };
  };

  it('lets exactly 5 of 15 concurrent exports of one workshop wait', async () => {
    // Three facilitators, so the per-user cap is not the one reached.
    const owner = await facilitator('Owner');
    const workshopId = await newWorkshop(owner.token);
    const others = [await facilitator('Co-host'), await facilitator('Helper')];
    const { workshopMembers } = instances.deps[0]!.database.db._.fullSchema;
    await instances.deps[0]!.database.transaction(async (tx) => {
      for (const other of others)
        await tx.insert(workshopMembers).values({ workshopId, userId: other.user.id, role: 'facilitator' });
    });
    const tokens = [owner.token, ...others.map((o) => o.token)];
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, n) => requestExport(n, workshopId, tokens[n % 3]!)),
    );
    const { sorted, seen } = await statuses(answers);
    expect(sorted, seen).toEqual([...Array(5).fill(201), ...Array(10).fill(409)]);
    expect(await pendingOf({ workshopId })).toBe(5);
  });

  it("lets exactly 4 of a user's 16 concurrent exports of 8 workshops wait", async () => {
    const busy = await facilitator('Busy');
    const workshops: string[] = [];
    for (let n = 0; n < 8; n++) workshops.push(await newWorkshop(busy.token));
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, n) => requestExport(n, workshops[n % 8]!, busy.token)),
    );
    const { sorted, seen } = await statuses(answers);
    expect(sorted, seen).toEqual([...Array(4).fill(201), ...Array(12).fill(409)]);
    expect(await pendingOf({ userId: busy.user.id })).toBe(4);
  });
});
