import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import type { Database } from '../src/db/database';
import type { AttachmentOutput } from '../src/domain/attachments';
import type { CardOutput } from '../src/domain/cards';
import type { OrganizationOutput } from '../src/domain/organizations';
import type { WorkshopOutput } from '../src/domain/workshops';
import type { CreatedApiTokenOutput } from '../src/modules/api-tokens/schemas';
import type { NativeDocument } from '../src/modules/exports/native-schema';
import { AccountFile, ContributionsFile } from '../src/modules/account-export/schemas';
import type { GuestSessionOutput } from '../src/modules/workshops/schemas';
import type { UploadOutput } from '../src/modules/uploads/schemas';
import { useServer } from './helpers/cast';
import {
  createConfirmedUser,
  createUser,
  expectError,
  inTurn,
  multipart,
  seedCard,
  seedNotification,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import { comparable, nativeOf } from './helpers/native-files';
import { scrape } from './helpers/prometheus';
import type { TestServer } from './helpers/server';
import { until } from './helpers/wait';
import { buildScene, type SceneSpec } from './helpers/workshop-scene';
import { unzipArchive } from './helpers/zip';

/*
 * GET /v1/user/me/export (docs/api.md#your-data-export): downloaded through the real server,
 * read back with Debian's `unzip`, every file checked; the archive is written while it is read.
 */

/** Ada's own workshop: everything in it is hers, so it imports back whole into her account. */
const HERS: SceneSpec = {
  title: 'Garden plans',
  steps: [{ name: 'Collect', instructions: 'One idea per card.' }],
  criteria: [{ title: 'Joy', scale: 4 }],
  sections: ['Tasks'],
  clusters: [
    {
      title: 'Beds',
      color: 'green',
      ideas: [
        {
          title: 'Raised beds',
          content: 'Cedar, 40 cm.',
          votes: [{ by: 0, value: 1 }],
          ratings: [{ by: 0, criterion: 0, value: 3 }],
          comments: [{ by: 0, content: 'Before spring' }],
          items: [{ by: 0, section: 0, content: 'Buy wood' }],
        },
      ],
    },
    { title: 'Paths 小径', color: 'blue', ideas: [{ title: 'Gravel', aside: true }] },
  ],
  zones: [{ name: 'South', x: 0, y: 0, cols: 10, rows: 8 }],
};

/** Fay's workshop, where Ada (`by: 1`) writes the idea and gives all the feedback. */
const FAYS: SceneSpec = {
  title: 'Team offsite',
  steps: [],
  criteria: [{ title: 'Impact', scale: 4 }],
  sections: ['Notes'],
  clusters: [
    {
      title: 'Venue',
      ideas: [
        {
          title: 'A lake house',
          content: 'Quiet and near.',
          votes: [{ by: 1, value: 1 }],
          ratings: [{ by: 1, criterion: 0, value: 2 }],
          comments: [{ by: 1, content: 'I can book it' }],
          items: [{ by: 1, section: 0, content: 'Call the owner' }],
        },
      ],
    },
  ],
  zones: [],
};

const PASSWORD = 'correct horse battery';

interface Download {
  res: Response;
  bytes: Uint8Array;
}

async function download(t: TestServer, token: string | undefined): Promise<Download> {
  const res = await fetch(`${t.url}/v1/user/me/export`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** The user's archive read back with `unzip`; its two JSON files parsed, and held to their schemas. */
async function exported(t: TestServer, user: TestUser) {
  const { res, bytes } = await download(t, user.token);
  expect(res.status, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
  const zip = await unzipArchive(bytes);
  const json = (name: string): unknown => JSON.parse(zip.files.get(name)!.toString('utf8'));
  return {
    res,
    bytes,
    zip,
    account: v.parse(AccountFile, json('account.json')),
    contributions: v.parse(ContributionsFile, json('contributions.json')),
  };
}

/**
 * Ada, with one of everything an export holds: her own workshop, a part in Fay's and in her
 * organization's, an attachment, an API token and a notification.
 */
async function adasAccount(t: TestServer) {
  const ada = await createConfirmedUser(t, 'Ada');
  const fay = await createUser(t, 'Fay');
  const hers = (await buildScene(t, [ada], HERS)).workshop;
  const fays = await buildScene(t, [fay, ada], FAYS);
  const idea = fays.cards.get('A lake house')!;
  const upload = await t.request<UploadOutput>('POST', '/v1/uploads', {
    token: ada.token,
    rawBody: multipart('file', 'the lake house floor plan', { name: 'floor plan.txt', type: 'text/plain' }),
  });
  expect(upload.status, JSON.stringify(upload.body)).toBe(201);
  const attachment = await t.request<AttachmentOutput>(
    'POST',
    `/v1/workshops/${fays.workshop.id}/cards/${idea}/attachments`,
    { token: ada.token, body: { blob: upload.body } },
  );
  expect(attachment.status, JSON.stringify(attachment.body)).toBe(201);

  const organization = (
    await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: ada.token, body: { name: 'Acme' } })
  ).body;
  const orgs = await t.request<WorkshopOutput>('POST', `/v1/organizations/${organization.id}/workshops`, {
    token: ada.token,
    body: { title: 'Acme kickoff' },
  });
  expect(orgs.status, JSON.stringify(orgs.body)).toBe(201);
  const orgCard = await t.request<CardOutput>('POST', `/v1/workshops/${orgs.body.id}/cards`, {
    token: ada.token,
    body: { type: 'cluster', title: 'Goals' },
  });
  expect(orgCard.status, JSON.stringify(orgCard.body)).toBe(201);

  const apiToken = await t.request<CreatedApiTokenOutput>('POST', '/v1/user/me/api_tokens', {
    token: ada.token,
    body: { name: 'Backup script', scopes: ['workshops:read'] },
  });
  expect(apiToken.status, JSON.stringify(apiToken.body)).toBe(201);
  const notification = await seedNotification(t, ada, { type: 'message', data: { text: 'Welcome, Ada' } });
  return {
    ada,
    fay,
    hers,
    fays: fays.workshop,
    idea,
    organization,
    orgWorkshop: orgs.body,
    apiToken: apiToken.body,
    notification,
  };
}

describe('GET /v1/user/me/export', () => {
  // Every test downloads Ada's archive again.
  const t = useServer({ dataExportsPer10Minutes: 100 });
  let scene: Awaited<ReturnType<typeof adasAccount>>;
  beforeAll(async () => {
    scene = await adasAccount(t);
  });

  it('answers a ZIP named after the account and the day, holding account.json, her workshop and contributions.json', async () => {
    const { res, zip, account } = await exported(t, scene.ada);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Ada data export ${today}.zip"; filename*=UTF-8''Ada%20data%20export%20${today}.zip`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    const native = `workshops/garden-plans-${scene.hers.id}.json`;
    expect(zip.names).toEqual(['account.json', native, 'contributions.json']);
    expect(account.personal_workshops).toEqual([
      { id: scene.hers.id, title: 'Garden plans', created_at: scene.hers.created_at, file: native },
    ]);
  });

  it('lists her profile, organizations, workshops, sessions, tokens and notifications in account.json', async () => {
    const { ada, organization, apiToken } = scene;
    const { account } = await exported(t, ada);
    const me = (await t.request('GET', '/v1/user/me', { token: ada.token })).body;
    expect(account).toMatchObject({ format: 'account-export', version: 1, profile: me });
    expect(account.sign_in).toEqual({ password: true, identities: [] });
    expect(account.organizations).toEqual([
      { id: organization.id, name: 'Acme', role: 'admin', joined_at: expect.any(String) },
    ]);
    expect(account.workshop_memberships).toEqual([
      expect.objectContaining({
        workshop_id: scene.hers.id,
        personal: true,
        organization_id: null,
        role: 'facilitator',
      }),
      expect.objectContaining({
        workshop_id: scene.fays.id,
        personal: true,
        organization_id: null,
        role: 'participant',
      }),
      expect.objectContaining({
        workshop_id: scene.orgWorkshop.id,
        title: 'Acme kickoff',
        personal: false,
        organization_id: organization.id,
        role: 'facilitator',
      }),
    ]);
    expect(account.sessions).toEqual([expect.objectContaining({ current: true, method: 'password' })]);
    expect(account.api_tokens).toEqual([
      {
        id: apiToken.id,
        name: 'Backup script',
        organization_id: null,
        scopes: ['workshops:read'],
        prefix: apiToken.prefix,
        created_at: apiToken.created_at,
        expires_at: null,
        last_used_at: null,
        revoked_at: null,
      },
    ]);
    expect(account.notifications).toEqual([
      expect.objectContaining({ id: scene.notification.id, type: 'message', data: { text: 'Welcome, Ada' } }),
    ]);
  });

  it("lists in contributions.json what she wrote, voted and rated in Fay's and her organization's workshops, not her own", async () => {
    const { ada, fays, idea, orgWorkshop, organization } = scene;
    const { contributions } = await exported(t, ada);
    expect(contributions).toMatchObject({
      format: 'account-contributions',
      user_id: ada.id,
      withheld_organizations: [],
    });
    expect(contributions.workshops.map((w) => w.workshop.id)).toEqual([fays.id, orgWorkshop.id]);
    const [atFays, atAcme] = contributions.workshops;
    expect(atFays!.workshop).toEqual({
      id: fays.id,
      title: 'Team offsite',
      created_at: fays.created_at,
      organization: null,
    });
    expect(atFays!.role).toBe('participant');
    expect(atFays!.cards).toEqual([
      expect.objectContaining({ id: idea, type: 'idea', title: 'A lake house', content: 'Quiet and near.' }),
    ]);
    expect(atFays!.comments).toEqual([expect.objectContaining({ card_id: idea, content: 'I can book it' })]);
    expect(atFays!.votes).toEqual([expect.objectContaining({ card_id: idea, value: 1 })]);
    expect(atFays!.ratings).toEqual([expect.objectContaining({ card_id: idea, criterion: 'Impact', value: 2 })]);
    expect(atFays!.items).toEqual([
      expect.objectContaining({ card_id: idea, section: 'Notes', content: 'Call the owner' }),
    ]);
    expect(atFays!.attachments).toEqual([
      expect.objectContaining({ card_id: idea, name: 'floor plan.txt', mimetype: 'text/plain', size: 25 }),
    ]);
    expect(atAcme!.workshop.organization).toEqual({ id: organization.id, name: 'Acme' });
    expect(atAcme!.cards.map((c) => c.title)).toEqual(['Goals']);
  });

  it('holds her workshop as a native file that POST /v1/workshops imports back into an equal workshop', async () => {
    const { ada, hers } = scene;
    const { zip } = await exported(t, ada);
    const file = zip.files.get(`workshops/garden-plans-${hers.id}.json`)!;
    const native = JSON.parse(file.toString('utf8')) as NativeDocument;
    expect(native).toMatchObject({ format: 'workshop-native', version: 1, workshop: { id: hers.id } });
    expect(comparable(native)).toEqual(comparable(await nativeOf(t, ada, hers.id)));

    // As a person would: upload the file, then start a workshop from its link.
    const upload = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', file, { name: 'garden.json', type: 'application/json' }),
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const created = await t.request<WorkshopOutput>('POST', '/v1/workshops', {
      token: ada.token,
      body: { url: upload.body.url },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.id).not.toBe(hers.id);
    expect(comparable(await nativeOf(t, ada, created.body.id))).toEqual(comparable(native));
  });

  it('holds no secret: no session or API token, no password, no hash of any of them', async () => {
    const { ada, apiToken } = scene;
    const { bytes, zip } = await exported(t, ada);
    const { apiTokens, authTokens, users } = t.tables;
    const [user] = await t.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, ada.id));
    const sessions = await t.db
      .select({ hash: authTokens.tokenHash })
      .from(authTokens)
      .where(eq(authTokens.userId, ada.id));
    const tokens = await t.db.select({ hash: apiTokens.tokenHash }).from(apiTokens).where(eq(apiTokens.userId, ada.id));
    const secrets = [
      ada.token,
      apiToken.token,
      PASSWORD,
      user!.hash!,
      ...sessions.map((s) => s.hash),
      ...tokens.map((s) => s.hash),
    ];
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    const texts = [Buffer.from(bytes).toString('latin1'), ...[...zip.files.values()].map((b) => b.toString('utf8'))];
    for (const secret of secrets) for (const text of texts) expect(text.includes(secret), secret).toBe(false);
  });

  it('refuses a guest with 403 forbidden, and a request without a token with 401', async () => {
    const code = (
      await t.request<{ access_code: string }>('GET', `/v1/workshops/${scene.fays.id}/access_code`, {
        token: scene.fay.token,
      })
    ).body.access_code;
    const guest = await t.request<GuestSessionOutput>('POST', '/v1/workshops/join/guest', {
      body: { access_code: code, name: 'Gina' },
    });
    expect(guest.status, JSON.stringify(guest.body)).toBe(201);
    expectError(await t.request('GET', '/v1/user/me/export', { token: guest.body.token }), 403, 'forbidden');
    expectError(await t.request('GET', '/v1/user/me/export'), 401, 'unauthenticated');
    expectError(await t.request('GET', '/v1/user/me/export', { token: 'not-a-token' }), 401, 'unauthenticated');
  });

  it('refuses an API token with 403 insufficient_scope: it is no person', async () => {
    expectError(
      await t.request('GET', '/v1/user/me/export', { token: scene.apiToken.token }),
      403,
      'insufficient_scope',
    );
  });

  it('leaves out, from a password session, what she wrote in an organization requiring single sign-on, and says so', async () => {
    const olga = await createUser(t, 'Olga');
    const vault = (
      await t.request<OrganizationOutput>('POST', '/v1/organizations', { token: olga.token, body: { name: 'Vault' } })
    ).body;
    const workshop = (
      await t.request<WorkshopOutput>('POST', `/v1/organizations/${vault.id}/workshops`, {
        token: olga.token,
        body: { title: 'Vault plans' },
      })
    ).body;
    await seedCard(t, workshop.id, olga, { title: 'Secret plan' });
    await t.write(async (tx, { organizations }) => {
      await tx.update(organizations).set({ ssoRequired: true }).where(eq(organizations.id, vault.id));
    });
    const { zip, account, contributions } = await exported(t, olga);
    expect(account.organizations).toEqual([expect.objectContaining({ id: vault.id, role: 'admin' })]);
    expect(contributions.workshops).toEqual([]);
    expect(contributions.withheld_organizations).toEqual([{ id: vault.id, name: 'Vault' }]);
    for (const file of zip.files.values()) {
      expect(file.toString('utf8')).not.toContain('Secret plan');
      expect(file.toString('utf8')).not.toContain('Vault plans');
    }
  });

  it('cuts the download short when reading a workshop fails midway, so no reader takes the ZIP for whole', async () => {
    const ivy = await createUser(t, 'Ivy');
    for (const title of ['First', 'Second']) await seedWorkshop(t, ivy, { title });
    // The same app on a server of its own, over a store whose second snapshot (the second
    // workshop's read) fails, once the first workshop's bytes are on their way.
    const { database } = t.deps;
    let reads = 0;
    const failing: Database = {
      ...database,
      snapshot: (fn) => (++reads === 2 ? Promise.reject(new Error('provoked read failure')) : database.snapshot(fn)),
    };
    const server = serve({ fetch: createApp({ ...t.deps, database: failing }).fetch, port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/v1/user/me/export`, {
        headers: { authorization: `Bearer ${ivy.token}` },
      });
      expect(res.status).toBe(200);
      await expect(res.arrayBuffer().then((bytes) => unzipArchive(new Uint8Array(bytes)))).rejects.toThrow();
      expect(reads).toBe(2);
    } finally {
      server.close();
    }
    // The service answers on, and the next export is whole.
    const { zip } = await exported(t, ivy);
    expect(zip.names).toHaveLength(4);
  });

  it('answers an account with nothing yet an archive of empty lists', async () => {
    const newcomer = await createUser(t, 'Nell / Ops');
    const { res, zip, account, contributions } = await exported(t, newcomer);
    // A slash would name a folder in the saved file's name.
    expect(res.headers.get('content-disposition')).toContain(`filename="Nell _ Ops data export `);
    expect(zip.names).toEqual(['account.json', 'contributions.json']);
    expect(account).toMatchObject({ personal_workshops: [], organizations: [], api_tokens: [], notifications: [] });
    expect(contributions.workshops).toEqual([]);
  });
});

describe('GET /v1/user/me/export, streamed and limited', () => {
  const t = useServer();
  /**
   * Workshops of incompressible text, 24 MB in all: far beyond what the sockets between hold while
   * the client reads nothing (the server's send buffer grows to 4 MB here; the client's receive
   * buffer stays near its first size, since node's http client stops reading a body nobody reads).
   */
  const WORKSHOPS = 60;
  const CONTENT_BYTES = 400_000;
  const snapshotsTaken = async () =>
    (await scrape(t.url)).value('workshops_db_transactions_total', { kind: 'snapshot', outcome: 'commit' });

  it('sends the first bytes before reading every workshop, reads no further while nobody reads, and blocks nobody meanwhile', async () => {
    const sam = await createUser(t, 'Sam');
    const workshops = await inTurn(WORKSHOPS, async (index) => {
      const workshop = await seedWorkshop(t, sam, { title: `Workshop ${index}` });
      await seedCard(t, workshop.id, sam, { content: randomBytes(CONTENT_BYTES * 0.75).toString('base64') });
      return workshop;
    });
    const before = await snapshotsTaken();
    const res = await new Promise<IncomingMessage>((answered, failed) =>
      get(`${t.url}/v1/user/me/export`, { headers: { authorization: `Bearer ${sam.token}` } }, answered).on(
        'error',
        failed,
      ),
    );
    expect(res.statusCode).toBe(200);
    const body = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    const first = await body.next();
    // A ZIP's local file header: the archive is on its way.
    expect(first.value.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));

    // Nobody reads: the server stops at what the sockets between hold (half a second without a workshop read).
    let last = -1;
    let still = 0;
    await until(
      async () => {
        const now = await snapshotsTaken();
        still = now === last ? still + 1 : 0;
        last = now;
        return still >= 5;
      },
      'the export to stop reading',
      20_000,
      100,
    );
    const readWhileStalled = last - before;
    expect(readWhileStalled).toBeGreaterThan(0);
    expect(readWhileStalled).toBeLessThan(WORKSHOPS / 2);
    // The stalled download holds no database snapshot: another person's export goes through whole meanwhile.
    const nia = await createUser(t, 'Nia');
    const hers = await seedWorkshop(t, nia, { title: 'Small one' });
    const { zip: niasZip } = await exported(t, nia);
    expect(niasZip.names).toEqual(['account.json', `workshops/small-one-${hers.id}.json`, 'contributions.json']);

    const chunks: Buffer[] = [first.value];
    for (let next = await body.next(); !next.done; next = await body.next()) chunks.push(next.value);
    const zip = await unzipArchive(Buffer.concat(chunks));
    expect(zip.names).toEqual([
      'account.json',
      ...workshops.map((workshop, index) => `workshops/workshop-${index}-${workshop.id}.json`),
      'contributions.json',
    ]);
    // Sam's workshops, and Nia's one.
    expect((await snapshotsTaken()) - before).toBe(WORKSHOPS + 1);
  }, 60_000);

  it('refuses a fourth export within 10 minutes with 429 and when to try again', async () => {
    const rex = await createUser(t, 'Rex');
    for (let i = 0; i < 3; i++) expect((await download(t, rex.token)).res.status).toBe(200);
    const refused = await t.request('GET', '/v1/user/me/export', { token: rex.token });
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
