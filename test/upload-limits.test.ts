import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Config } from '../src/config';
import type { AttachmentOutput } from '../src/domain/attachments';
import type { IllustrationOutput } from '../src/domain/steps';
import type { UploadOutput } from '../src/modules/uploads/schemas';
import { sweepUnattachedUploads } from '../src/modules/uploads/unattached';
import type { GuestSessionOutput } from '../src/modules/workshops/schemas';
import { useServer, useInstances } from './helpers/cast';
import {
  createUser,
  errorOf,
  expectError,
  multipart,
  pngImage,
  seedCard,
  seedCurrentStep,
  seedFile,
  seedMember,
  seedWorkshop,
  type TestUser,
} from './helpers/factories';
import type { OpenApiDocument } from './helpers/openapi';
import { scrape } from './helpers/prometheus';
import type { TestServer } from './helpers/server';
import { answeredBeyond503 } from './helpers/wait';

/*
 * Upload limits: what one person may upload in 24 hours (guests less), what one workshop's files
 * may hold, held across instances; uploads attached to nothing removed after their hours; the
 * bytes stored in the metrics. Over real HTTP on the run's store, with limits of a few MiB.
 */

const KIB = 1024;
const MIB = 1024 * KIB;
const HOUR = 3_600_000;
const LIMITS = { uploadUserDailyMb: 2, uploadGuestDailyMb: 1, uploadWorkshopMb: 3 } satisfies Partial<Config>;

afterEach(() => {
  vi.useRealTimers();
});

const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

function upload(
  server: TestServer,
  user: TestUser,
  size: number,
  name = 'part.bin',
  type = 'application/octet-stream',
) {
  const data = new Uint8Array(size);
  // An upload is an image only if its bytes say so: a PNG's start will do for counting bytes.
  if (type === 'image/png') data.set(PNG_SIGNATURE.subarray(0, size));
  return server.request<UploadOutput>('POST', '/v1/uploads', {
    token: user.token,
    rawBody: multipart('file', data, { name, type }),
  });
}

async function uploaded(
  server: TestServer,
  user: TestUser,
  size: number,
  name?: string,
  type?: string,
): Promise<UploadOutput> {
  const res = await upload(server, user, size, name, type);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The objects in the uploads folder (shared by instances sharing a database). */
function storedObjects(server: TestServer): string[] {
  const dir = join(server.deps.config.filesDir, 'uploads');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

const filesOf = (server: TestServer, userId: string) =>
  server.db.select().from(server.tables.files).where(eq(server.tables.files.userId, userId));

/** A facilitator's workshop (guests allowed) with a card. */
async function openWorkshop(server: TestServer) {
  const facilitator = await createUser(server, 'Fay');
  const workshop = await seedWorkshop(server, facilitator);
  const card = await seedCard(server, workshop.id, facilitator, { type: 'cluster' });
  return { facilitator, workshop, card, attachments: `/v1/workshops/${workshop.id}/cards/${card.id}/attachments` };
}

async function guestIn(server: TestServer, accessCode: string, name = 'Gina'): Promise<TestUser> {
  const res = await server.request<GuestSessionOutput>('POST', '/v1/workshops/join/guest', {
    body: { access_code: accessCode, name },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { token: res.body.token, id: res.body.user.id, email: '', name };
}

/** What a refused upload must leave: the uploader's rows and the folder's objects as they were. */
async function expectNothingStored(server: TestServer, user: TestUser, before: { rows: number; objects: string[] }) {
  expect(await filesOf(server, user.id)).toHaveLength(before.rows);
  expect(storedObjects(server)).toEqual(before.objects);
}

describe('upload limits on one instance', () => {
  const t = useServer(LIMITS);

  it("refuses a guest's upload past its daily allowance with 429 and Retry-After, storing nothing", async () => {
    const { workshop } = await openWorkshop(t);
    const guest = await guestIn(t, workshop.accessCode);
    await uploaded(t, guest, 600 * KIB);
    const before = { rows: 1, objects: storedObjects(t) };

    const refused = await upload(t, guest, 600 * KIB);
    expectError(refused, 429, 'upload_quota_exceeded');
    // The first upload stops counting a day after it was made.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(24 * 3600 - 60);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    await expectNothingStored(t, guest, before);
    // What still fits is taken.
    await uploaded(t, guest, 400 * KIB);
  });

  it("counts a user's last 24 hours, and says when enough of them are a day old", async () => {
    const ada = await createUser(t, 'Ada');
    const now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: now - 10 * HOUR });
    await uploaded(t, ada, MIB);
    vi.setSystemTime(now - 2 * HOUR);
    await uploaded(t, ada, MIB);
    vi.setSystemTime(now);
    const before = { rows: 2, objects: storedObjects(t) };

    // Half a MiB more fits once the first MiB is a day old: in 14 hours.
    const half = await upload(t, ada, MIB / 2);
    expectError(half, 429, 'upload_quota_exceeded');
    expect(Number(half.headers.get('retry-after'))).toBe(14 * 3600);
    // One and a half needs both to be a day old: in 22 hours.
    expect(Number((await upload(t, ada, (3 * MIB) / 2)).headers.get('retry-after'))).toBe(22 * 3600);
    await expectNothingStored(t, ada, before);

    vi.setSystemTime(now + 14 * HOUR + 1000);
    await uploaded(t, ada, MIB / 2);
    // A file larger than the whole allowance never fits: it is refused for a day.
    const huge = await upload(t, ada, 3 * MIB);
    expectError(huge, 429, 'upload_quota_exceeded');
    expect(Number(huge.headers.get('retry-after'))).toBe(24 * 3600);
    expect(errorOf(huge).message).toMatch(/2 MB/);
  });

  it("refuses a guest's upload past the workshop's room with 413, storing nothing", async () => {
    const { workshop } = await openWorkshop(t);
    // Three guests, a MiB each: the workshop's 3 MiB are full.
    for (const name of ['Gus', 'Gwen', 'Gil']) await uploaded(t, await guestIn(t, workshop.accessCode, name), MIB);
    const late = await guestIn(t, workshop.accessCode, 'Greta');
    const before = { rows: 0, objects: storedObjects(t) };
    const refused = await upload(t, late, 10 * KIB);
    expectError(refused, 413, 'workshop_storage_full');
    expect(refused.headers.get('retry-after')).toBeNull();
    await expectNothingStored(t, late, before);
    // Another workshop has room of its own.
    const other = await openWorkshop(t);
    await uploaded(t, await guestIn(t, other.workshop.accessCode), 10 * KIB);
  });

  it("counts a user's upload against the first workshop that uses it: an attachment or an illustration past its room is refused with 413", async () => {
    const { facilitator, workshop, attachments } = await openWorkshop(t);
    const pat = await createUser(t, 'Pat');
    await seedMember(t, workshop.id, pat, 'facilitator');
    // A guest's 900 KiB count from the upload on; attaching them in their workshop counts nothing more.
    const guest = await guestIn(t, workshop.accessCode);
    const guestFile = await uploaded(t, guest, 900 * KIB);
    expect((await t.request('POST', attachments, { token: guest.token, body: { blob: guestFile } })).status).toBe(201);
    // A user's uploads count nowhere until used: Fay's 1.5 MiB once attached here (2,436 KiB of 3,072).
    const fays = await uploaded(t, facilitator, (3 * MIB) / 2);
    expect(
      (await t.request<AttachmentOutput>('POST', attachments, { token: facilitator.token, body: { blob: fays } }))
        .status,
    ).toBe(201);
    const pats = await uploaded(t, pat, 700 * KIB);
    const refused = await t.request('POST', attachments, { token: pat.token, body: { blob: pats } });
    expectError(refused, 413, 'workshop_storage_full');
    expect(await t.db.select().from(t.tables.attachments).where(eq(t.tables.attachments.fileKey, pats.key))).toEqual(
      [],
    );
    // Fay's upload, counted here already, is attached to a second card without counting again.
    const another = await seedCard(t, workshop.id, facilitator, { type: 'cluster' });
    const anotherCard = `/v1/workshops/${workshop.id}/cards/${another.id}/attachments`;
    expect((await t.request('POST', anotherCard, { token: facilitator.token, body: { blob: fays } })).status).toBe(201);
    // Pat's upload fits a workshop with room of its own.
    const elsewhere = await openWorkshop(t);
    await seedMember(t, elsewhere.workshop.id, pat);
    expect((await t.request('POST', elsewhere.attachments, { token: pat.token, body: { blob: pats } })).status).toBe(
      201,
    );

    // An illustration is counted alike.
    const step = await seedCurrentStep(t, workshop.id, {});
    const illustration = `/v1/workshops/${workshop.id}/steps/${step.id}/illustration`;
    const image = await uploaded(t, pat, 700 * KIB, 'board.png', 'image/png');
    expectError(
      await t.request<IllustrationOutput>('POST', illustration, { token: pat.token, body: { blob: image } }),
      413,
      'workshop_storage_full',
    );
    expectError(await t.request('GET', illustration, { token: pat.token }), 404, 'not_found');
    const small = await uploaded(t, pat, 10, 'dot.png', 'image/png');
    expect((await t.request('POST', illustration, { token: pat.token, body: { blob: small } })).status).toBe(201);
  });

  it('documents the refusals of the upload, attachment and illustration routes', async () => {
    const document = (await t.request<OpenApiDocument>('GET', '/v1/openapi.json')).body;
    const uploadRoute = document.paths['/v1/uploads']!.post!;
    expect(uploadRoute.responses['429']!.description).toMatch(/upload_quota_exceeded/);
    expect(Object.keys((uploadRoute.responses['429'] as { headers?: object }).headers ?? {})).toContain('Retry-After');
    expect(uploadRoute.responses['413']!.description).toMatch(/workshop_storage_full/);
    expect(
      document.paths['/v1/workshops/{workshop_id}/cards/{card_id}/attachments']!.post!.responses['413']!.description,
    ).toMatch(/workshop_storage_full/);
    expect(
      document.paths['/v1/workshops/{workshop_id}/steps/{step_id}/illustration']!.post!.responses['413']!.description,
    ).toMatch(/workshop_storage_full/);
  });
});

describe('a limit of 0', () => {
  const guestsFree = useServer({ uploadUserDailyMb: 1, uploadGuestDailyMb: 0, uploadWorkshopMb: 0 });
  const usersFree = useServer({ uploadUserDailyMb: 0, uploadGuestDailyMb: 1, uploadWorkshopMb: 0 });

  it('turns that one limit off, and only that one', async () => {
    for (const [server, free] of [
      [guestsFree, 'guest'],
      [usersFree, 'user'],
    ] as const) {
      const { facilitator, workshop } = await openWorkshop(server);
      const guest = await guestIn(server, workshop.accessCode);
      const [unlimited, limited] = free === 'guest' ? [guest, facilitator] : [facilitator, guest];
      for (let n = 0; n < 3; n++) await uploaded(server, unlimited, (3 * MIB) / 2);
      expectError(await upload(server, limited, (3 * MIB) / 2), 429, 'upload_quota_exceeded');
    }
  });
});

describe('upload limits on instances sharing the database', () => {
  const [a, b] = useInstances(2, LIMITS);

  it("spend one guest's allowance and one workshop's room, whichever instance takes the upload", async () => {
    const { workshop } = await openWorkshop(a);
    const guest = await guestIn(a, workshop.accessCode);
    await uploaded(a, guest, 600 * KIB);
    expectError(await upload(b, guest, 600 * KIB), 429, 'upload_quota_exceeded');
    // Two more guests fill the 3 MiB through the other instance, in turn.
    await uploaded(b, await guestIn(b, workshop.accessCode, 'Gus'), MIB);
    await uploaded(a, await guestIn(a, workshop.accessCode, 'Gwen'), MIB);
    expectError(await upload(b, await guestIn(b, workshop.accessCode, 'Gil'), 500 * KIB), 413, 'workshop_storage_full');
  });

  it('let exactly the allowance through when uploads arrive together on both', async () => {
    const { workshop } = await openWorkshop(a);
    const guest = await guestIn(a, workshop.accessCode);
    const before = storedObjects(a);
    // 1 MiB holds two of 400 KiB, not three.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) => answeredBeyond503(() => upload(n % 2 ? b : a, guest, 400 * KIB))),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 429, 429, 429, 429]);
    expect(await filesOf(a, guest.id)).toHaveLength(2);
    // The refused ones' bytes, written before the decisive check, are gone again.
    expect(storedObjects(a).filter((name) => !before.includes(name))).toHaveLength(2);
  });
});

describe('uploads attached to nothing', () => {
  const t = useServer({ ...LIMITS, uploadUnattachedHours: 24 });

  it('are removed with their object once their hours are past; attached ones, illustrations, avatars and exports stay', async () => {
    const { facilitator, workshop, attachments } = await openWorkshop(t);
    const guest = await guestIn(t, workshop.accessCode);
    const loose = await uploaded(t, facilitator, 10 * KIB, 'loose.bin');
    const guestLoose = await uploaded(t, guest, 10 * KIB, 'guest-loose.bin');
    const attached = await uploaded(t, facilitator, 10 * KIB, 'attached.bin');
    expect((await t.request('POST', attachments, { token: facilitator.token, body: { blob: attached } })).status).toBe(
      201,
    );
    const detached = await uploaded(t, facilitator, 10 * KIB, 'detached.bin');
    const detaching = await t.request<AttachmentOutput>('POST', attachments, {
      token: facilitator.token,
      body: { blob: detached },
    });
    expect(
      (await t.request('DELETE', `${attachments}/${detaching.body.id}`, { token: facilitator.token })).status,
    ).toBe(204);
    const step = await seedCurrentStep(t, workshop.id, {});
    const png = await pngImage(8, 8);
    const image = (
      await t.request<UploadOutput>('POST', '/v1/uploads', {
        token: facilitator.token,
        rawBody: multipart('file', png, { name: 'board.png', type: 'image/png' }),
      })
    ).body;
    expect(
      (
        await t.request('POST', `/v1/workshops/${workshop.id}/steps/${step.id}/illustration`, {
          token: facilitator.token,
          body: { blob: image },
        })
      ).status,
    ).toBe(201);
    const avatar = await t.request('PUT', '/v1/user/me/avatar', {
      token: facilitator.token,
      rawBody: multipart('avatar', png, { name: 'me.png', type: 'image/png' }),
    });
    expect(avatar.status).toBe(200);
    const exported = await seedFile(t, facilitator, { container: 'exports', name: 'retro.pdf' });
    const rowsBefore = await t.db.select().from(t.tables.files);
    const kept = rowsBefore.filter((row) => ![loose.key, guestLoose.key, detached.key].includes(row.key));
    const object = (key: string) => existsSync(join(t.deps.config.filesDir, 'uploads', key));

    // Younger than their hours: left alone.
    expect(await sweepUnattachedUploads(t.deps, { now: Date.now() + 23 * HOUR })).toBe(0);
    expect(await t.db.select().from(t.tables.files)).toHaveLength(rowsBefore.length);

    expect(await sweepUnattachedUploads(t.deps, { now: Date.now() + 25 * HOUR })).toBe(3);
    expect((await t.db.select().from(t.tables.files)).map((row) => row.key).sort()).toEqual(
      kept.map((row) => row.key).sort(),
    );
    for (const gone of [loose, guestLoose, detached]) {
      expect(object(gone.key), gone.key).toBe(false);
      expect((await fetch(gone.url)).status).toBe(404);
    }
    for (const stays of [attached, image]) expect(object(stays.key)).toBe(true);
    expect((await fetch(attached.url)).status).toBe(200);
    expect(kept.map((row) => row.key)).toContain(exported.key);
    expect(kept.some((row) => row.container === 'avatars')).toBe(true);

    // Sweeping again, twice at once: nothing more to remove, and no failure.
    expect(
      await Promise.all([
        sweepUnattachedUploads(t.deps, { now: Date.now() + 25 * HOUR }),
        sweepUnattachedUploads(t.deps, { now: Date.now() + 25 * HOUR }),
      ]),
    ).toEqual([0, 0]);
  });

  it('free the room they took in their workshop once removed', async () => {
    const { workshop } = await openWorkshop(t);
    const guests = await Promise.all(['Gus', 'Gwen', 'Gil'].map((name) => guestIn(t, workshop.accessCode, name)));
    for (const guest of guests) await uploaded(t, guest, MIB);
    const late = await guestIn(t, workshop.accessCode, 'Greta');
    expectError(await upload(t, late, 10 * KIB), 413, 'workshop_storage_full');
    await sweepUnattachedUploads(t.deps, { now: Date.now() + 25 * HOUR });
    await uploaded(t, late, 10 * KIB);
  });
});

describe('the metrics', () => {
  const t = useServer(LIMITS);

  it('count the bytes stored, by container, with no id in a label', async () => {
    const user = await createUser(t, 'Ada');
    const before = await scrape(t.url);
    await uploaded(t, user, 1000);
    await uploaded(t, user, 234);
    const after = await scrape(t.url);
    expect(after.family('workshops_files_stored_bytes').type).toBe('GAUGE');
    expect(
      after.value('workshops_files_stored_bytes', { container: 'uploads' }) -
        before.value('workshops_files_stored_bytes', { container: 'uploads' }),
    ).toBe(1234);
    const labels = after.labelValues().filter(({ series }) => series === 'workshops_files_stored_bytes');
    expect(
      labels.every(({ label, value }) => label === 'container' && ['uploads', 'avatars', 'exports'].includes(value)),
    ).toBe(true);
  });
});
