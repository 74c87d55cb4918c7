import { connect, createServer, type Socket } from 'node:net';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { ExportOutput } from '../src/domain/events';
import type { AttachmentOutput } from '../src/domain/attachments';
import type { IllustrationOutput } from '../src/domain/steps';
import type { UploadOutput } from '../src/modules/uploads/schemas';
import type { UserOutput } from '../src/modules/users/schemas';
import { imageUrlTemplate, publicFileUrl } from '../src/modules/uploads/file-links';
import { CONTAINERS, objectName } from '../src/modules/uploads/storage';
import { sweepNextPage, sweepStrayBlobs } from '../src/modules/uploads/stray-sweep';
import { sweepUnattachedUploads } from '../src/modules/uploads/unattached';
import { useServer, useUsers } from './helpers/cast';
import {
  createUser,
  expectError,
  multipart,
  pngImage,
  seedCard,
  seedCurrentStep,
  seedWorkshopWith,
  type TestUser,
} from './helpers/factories';
import { useS3 } from './helpers/s3';
import { expectUploadsServedByTheirBytes } from './helpers/served-files';
import { startTestServer, type TestServer } from './helpers/server';
import { silentServer } from './helpers/silent-tcp';
import { quietFor, until } from './helpers/wait';

/*
 * Files in object storage (docs/configuration.md#object-storage): two instances over one database
 * and one bucket (s3rver, a real S3-compatible server), so every file written through one is read
 * through the other.
 *
 * Among the slowest files (about 15 s): object storage that takes connections and never answers
 * is given up only after the store's own limits (two attempts of 3 s each), and an export asked
 * while the storage is away is made only once its lease (2 s here) and the runner's next turn have
 * come.
 */

const s3 = useS3();
const first = useServer(() => s3().filesConfig('service'));
// Behind one public URL, as instances behind a load balancer are: links name it, whoever made them.
const second = useServer(
  () => ({ ...s3().filesConfig('service'), publicUrl: first.url }),
  () => ({ shareDatabaseOf: first }),
);
const [fay] = useUsers(first, 'Fay');

/** The same link, asked of another instance. */
const on = (server: TestServer, link: string) => {
  const url = new URL(link);
  return `${server.url}${url.pathname}${url.search}`;
};

const sized = (template: string, width: number, height: number) =>
  template.replace('{{width}}', String(width)).replace('{{height}}', String(height));

async function upload(
  server: TestServer,
  user: TestUser,
  data: string | Uint8Array,
  file: { name: string; type: string },
) {
  const res = await server.request<UploadOutput>('POST', '/v1/uploads', {
    token: user.token,
    rawBody: multipart('file', data, file),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const exportsPath = (workshopId: string) => `/v1/workshops/${workshopId}/exports`;

async function exported(server: TestServer, workshopId: string, type: string): Promise<ExportOutput> {
  const created = await server.request<ExportOutput>('POST', exportsPath(workshopId), {
    token: fay.token,
    body: { type },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  let current = created.body;
  await until(
    async () => {
      current = (
        await server.request<ExportOutput>('GET', `${exportsPath(workshopId)}/${created.body.id}`, { token: fay.token })
      ).body;
      return current.state !== 'pending';
    },
    `the ${type} export to be made`,
    20_000,
  );
  return current;
}

const keyOf = (link: string) => new URL(link).pathname.split('/')[3]!;

describe('files in object storage, across instances', () => {
  it('an upload made through one instance is stored in the bucket and served by the other', async () => {
    const file = await upload(first, fay, 'notes across machines', { name: 'notes.txt', type: 'text/plain' });
    expect(await s3().keys('service/uploads/')).toContain(`service/uploads/${file.key}`);
    const served = await fetch(on(second, file.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/octet-stream');
    expect(served.headers.get('content-length')).toBe('21');
    expect(served.headers.get('content-disposition')).toMatch(/^attachment; filename="notes\.txt"/);
    expect(await served.text()).toBe('notes across machines');
  });

  it('never serves a script, a page or an SVG from the bucket as what its uploader claimed, only real images inline', async () => {
    await expectUploadsServedByTheirBytes(first, fay, (url) => on(second, url));
  });

  it("an illustration's signed, resize and crop links work on the other instance", async () => {
    const image = await upload(first, fay, await pngImage(40, 20), { name: 'board.png', type: 'image/png' });
    const workshop = await seedWorkshopWith(first, fay, []);
    const step = await seedCurrentStep(first, workshop.id, {});
    const path = `/v1/workshops/${workshop.id}/steps/${step.id}/illustration`;
    const set = await first.request<IllustrationOutput>('POST', path, {
      token: fay.token,
      body: { blob: { key: image.key, container: image.container } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(201);

    const read = await second.request<IllustrationOutput>('GET', path, { token: fay.token });
    expect(read.status).toBe(200);
    const whole = await fetch(on(second, read.body.public_url));
    expect(whole.status).toBe(200);
    expect((await sharp(Buffer.from(await whole.arrayBuffer())).metadata()).width).toBe(40);

    const resized = await fetch(on(second, sized(read.body.resize_url, 10, 10)));
    expect(resized.status).toBe(200);
    expect(resized.headers.get('content-type')).toBe('image/png');
    expect(await sharp(Buffer.from(await resized.arrayBuffer())).metadata()).toMatchObject({ width: 10, height: 5 });
    const cropped = await fetch(on(first, sized(read.body.crop_url, 8, 8)));
    expect(cropped.status).toBe(200);
    expect(await sharp(Buffer.from(await cropped.arrayBuffer())).metadata()).toMatchObject({ width: 8, height: 8 });
  });

  it("an attachment's link works on the other instance", async () => {
    const file = await upload(second, fay, 'attached on two', { name: 'plan.txt', type: 'text/plain' });
    const workshop = await seedWorkshopWith(first, fay, []);
    await seedCurrentStep(first, workshop.id, {});
    const card = await seedCard(first, workshop.id, fay, { type: 'cluster' });
    const path = `/v1/workshops/${workshop.id}/cards/${card.id}/attachments`;
    const attached = await second.request<AttachmentOutput>('POST', path, {
      token: fay.token,
      body: { blob: { key: file.key, container: file.container } },
    });
    expect(attached.status, JSON.stringify(attached.body)).toBe(201);
    const listed = await first.request<AttachmentOutput[]>('GET', path, { token: fay.token });
    const served = await fetch(on(first, listed.body[0]!.url));
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('attached on two');
  });

  it('an avatar set through one instance is served by the other; replacing it leaves one object', async () => {
    const set = await first.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: fay.token,
      rawBody: multipart('avatar', await pngImage(30, 30), { type: 'image/png' }),
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const before = await s3().keys('service/avatars/');
    expect(before).toEqual([`service/avatars/${keyOf(set.body.avatar_url!)}`]);
    expect((await fetch(on(second, set.body.avatar_url!))).status).toBe(200);

    const replaced = await second.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: fay.token,
      rawBody: multipart('avatar', await pngImage(20, 20), { type: 'image/png' }),
    });
    expect(replaced.status).toBe(200);
    expect(await s3().keys('service/avatars/')).toEqual([`service/avatars/${keyOf(replaced.body.avatar_url!)}`]);
    expectError(
      await first.request('GET', new URL(set.body.avatar_url!).pathname + new URL(set.body.avatar_url!).search),
      404,
      'not_found',
    );
    expect((await fetch(on(first, replaced.body.avatar_url!))).status).toBe(200);
  });

  it('sweeps blobs no file row refers to from every container, once old enough, and keeps recorded ones', async () => {
    const recordedUpload = await upload(first, fay, 'kept', { name: 'kept.txt', type: 'text/plain' });
    const avatar = (
      await first.request<UserOutput>('PUT', '/v1/user/me/avatar', {
        token: fay.token,
        rawBody: multipart('avatar', await pngImage(10, 10), { type: 'image/png' }),
      })
    ).body;
    // What a process that died between the blob and its row, or a commit in doubt that did not happen, leaves.
    const strays = CONTAINERS.map((container) => `${container}/stray${container}0000000000000`);
    for (const name of strays)
      await first.deps.files.put(name, new TextEncoder().encode('nobody refers to me'), { contentType: 'text/plain' });
    const kept = [`uploads/${recordedUpload.key}`, `avatars/${keyOf(avatar.avatar_url!)}`];

    // Fresh ones may still be on their way to a row: left alone.
    for (const container of CONTAINERS) expect((await sweepStrayBlobs(second.deps, container)).removed).toBe(0);
    expect(await s3().keys('service/')).toEqual(
      expect.arrayContaining([...strays, ...kept].map((name) => `service/${name}`)),
    );

    const anHourOn = Date.now() + 3_600_000;
    for (const container of CONTAINERS) await sweepStrayBlobs(second.deps, container, { now: anHourOn });
    const left = await s3().keys('service/');
    for (const name of strays) expect(left).not.toContain(`service/${name}`);
    expect(left).toEqual(expect.arrayContaining(kept.map((name) => `service/${name}`)));
    expect((await fetch(on(first, recordedUpload.url))).status).toBe(200);

    // The instances' periodic sweep goes through each container's pages, then on to the next container.
    let cursor = { container: 0, after: undefined as string | undefined };
    const visited: number[] = [];
    for (let sweep = 0; sweep < CONTAINERS.length; sweep++) {
      visited.push(cursor.container);
      cursor = await sweepNextPage(first.deps, cursor);
    }
    expect(visited).toEqual([0, 1, 2]);
    expect(cursor).toEqual({ container: 0, after: undefined });
  });

  it('an export made by one instance downloads through the other, by its link and by the API', async () => {
    const workshop = (
      await first.request<{ id: string }>('POST', '/v1/workshops', {
        token: fay.token,
        body: { title: 'Shared retro' },
      })
    ).body;
    const done = await exported(first, workshop.id, 'native');
    expect(done.state).toBe('success');
    expect(await s3().keys(`service/exports/${workshop.id}_`)).toEqual([`service/exports/${keyOf(done.url!)}`]);
    for (const server of [first, second]) {
      const byLink = await fetch(on(server, done.url!));
      expect(byLink.status).toBe(200);
      expect(byLink.headers.get('content-type')).toBe('application/json');
      expect(byLink.headers.get('content-disposition')).toMatch(/^attachment; filename="Shared retro\.json"/);
      expect(JSON.parse(await byLink.text())).toMatchObject({ workshop: { title: 'Shared retro' } });
      const byApi = await fetch(`${server.url}${exportsPath(workshop.id)}/${done.id}/download`, {
        headers: { authorization: `Bearer ${fay.token}` },
      });
      expect(byApi.status).toBe(200);
      expect(byApi.headers.get('content-type')).toBe('application/json');
    }
  });

  it('deleting the workshop removes its objects from the bucket, those of renders never recorded too', async () => {
    const workshop = (
      await first.request<{ id: string }>('POST', '/v1/workshops', { token: fay.token, body: { title: 'Short-lived' } })
    ).body;
    const csv = await exported(first, workshop.id, 'csv');
    const native = await exported(second, workshop.id, 'native');
    // As a render leaves its file when the instance dies before recording it.
    await first.deps.files.put(
      `exports/${workshop.id}_unrecorded0000000000000`,
      new TextEncoder().encode('left behind'),
    );
    const kept = await upload(first, fay, 'still mine', { name: 'kept.txt', type: 'text/plain' });
    expect(await s3().keys(`service/exports/${workshop.id}_`)).toHaveLength(3);

    expect((await second.request('DELETE', `/v1/workshops/${workshop.id}`, { token: fay.token })).status).toBe(204);
    expect(await s3().keys(`service/exports/${workshop.id}_`)).toEqual([]);
    for (const done of [csv, native])
      expectError(
        await first.request('GET', new URL(done.url!).pathname + new URL(done.url!).search),
        404,
        'not_found',
      );
    // Uploads are their uploader's, not the workshop's: they stay.
    expect(await s3().keys('service/uploads/')).toContain(`service/uploads/${kept.key}`);
  });

  it('a file whose object is gone answers 404, never 500: its link, a resize link and an export download', async () => {
    const image = await upload(first, fay, await pngImage(16, 16), { name: 'gone.png', type: 'image/png' });
    await first.deps.files.delete(objectName(image));
    expectError(await second.request('GET', new URL(image.url).pathname + new URL(image.url).search), 404, 'not_found');
    const resize = new URL(sized(imageUrlTemplate(second.deps.config, image, 'resize'), 5, 5));
    expectError(await second.request('GET', resize.pathname + resize.search), 404, 'not_found');

    const workshop = (
      await first.request<{ id: string }>('POST', '/v1/workshops', { token: fay.token, body: { title: 'Lost' } })
    ).body;
    const done = await exported(first, workshop.id, 'csv');
    await first.deps.files.delete(`exports/${keyOf(done.url!)}`);
    expectError(
      await second.request('GET', `${exportsPath(workshop.id)}/${done.id}/download`, { token: fay.token }),
      404,
      'not_found',
    );
  });

  it('removes an upload attached to nothing from the bucket once its hours are past, through either instance, and keeps an attached one', async () => {
    const loose = await upload(first, fay, 'nobody attached me', { name: 'loose.txt', type: 'text/plain' });
    const kept = await upload(second, fay, 'attached', { name: 'kept.txt', type: 'text/plain' });
    const workshop = await seedWorkshopWith(first, fay, []);
    const card = await seedCard(first, workshop.id, fay, { type: 'cluster' });
    const attached = await first.request('POST', `/v1/workshops/${workshop.id}/cards/${card.id}/attachments`, {
      token: fay.token,
      body: { blob: kept },
    });
    expect(attached.status).toBe(201);
    const dayAndMore = Date.now() + 25 * 3_600_000;
    const removed = await Promise.all([
      sweepUnattachedUploads(first.deps, { now: dayAndMore }),
      sweepUnattachedUploads(second.deps, { now: dayAndMore }),
    ]);
    expect(removed[0] + removed[1]).toBeGreaterThanOrEqual(1);
    const left = await s3().keys('service/uploads/');
    expect(left).not.toContain(`service/uploads/${loose.key}`);
    expect(left).toContain(`service/uploads/${kept.key}`);
    expect((await fetch(on(second, loose.url))).status).toBe(404);
    expect((await fetch(on(second, kept.url))).status).toBe(200);
  });
});

describe('object storage refusing or away', () => {
  it('a failed export leaves no object: the storage refused the write', async () => {
    // s3rver knows one access key; this instance signs with another, so every write is refused.
    const refused = await startTestServer({
      ...s3().filesConfig('refused'),
      s3: { ...s3().settings, accessKeyId: 'NOT-A-KEY' },
    });
    try {
      const ada = await createUser(refused, 'Ada');
      const workshop = (
        await refused.request<{ id: string }>('POST', '/v1/workshops', { token: ada.token, body: { title: 'Refused' } })
      ).body;
      const created = await refused.request<ExportOutput>('POST', exportsPath(workshop.id), {
        token: ada.token,
        body: { type: 'csv' },
      });
      let current = created.body;
      await until(
        async () => {
          current = (
            await refused.request<ExportOutput>('GET', `${exportsPath(workshop.id)}/${created.body.id}`, {
              token: ada.token,
            })
          ).body;
          return current.state !== 'pending';
        },
        'the export to fail',
        20_000,
      );
      expect(current).toMatchObject({ state: 'failed', url: null, message: 'The csv file could not be made.' });
      expect(await s3().keys('refused/')).toEqual([]);
    } finally {
      await refused.close();
    }
  });

  it('with the storage taking connections and never answering, an upload answers 503 within seconds', async () => {
    const silent = await silentServer();
    const hung = await startTestServer({ ...s3().filesConfig('hung'), s3: { ...s3().settings, endpoint: silent.url } });
    try {
      const ada = await createUser(hung, 'Ada');
      const started = Date.now();
      const res = await hung.request('POST', '/v1/uploads', {
        token: ada.token,
        rawBody: multipart('file', 'x', { name: 'x.txt', type: 'text/plain' }),
      });
      expectError(res, 503, 'service_unavailable');
      // Two attempts of at most 3 s each (connected, never answered), and the pause between them.
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(silent.connections()).toBeGreaterThan(0);
    } finally {
      await hung.close();
      await silent.close();
    }
  }, 30_000);

  it('an export asked while the storage is away stays pending, and is made once the storage is back', async () => {
    const gate = await storageGate(s3().endpoint);
    const flaky = await startTestServer({
      ...s3().filesConfig('flaky'),
      s3: { ...s3().settings, endpoint: gate.url },
      exportLeaseMs: 2_000,
    });
    try {
      const ada = await createUser(flaky, 'Ada');
      const workshop = (
        await flaky.request<{ id: string }>('POST', '/v1/workshops', { token: ada.token, body: { title: 'Flaky' } })
      ).body;
      gate.close();
      const created = (
        await flaky.request<ExportOutput>('POST', exportsPath(workshop.id), { token: ada.token, body: { type: 'csv' } })
      ).body;
      await until(() => gate.refused() > 0, 'the render to find the storage away');
      // The outcome of that render is recorded at once: an export failed for good would show it now.
      await quietFor(500, 'the failed render recorded');
      const during = (
        await flaky.request<ExportOutput>('GET', `${exportsPath(workshop.id)}/${created.id}`, { token: ada.token })
      ).body;
      expect(during).toMatchObject({ state: 'pending', url: null });
      gate.open();
      let current = during;
      await until(
        async () => {
          current = (
            await flaky.request<ExportOutput>('GET', `${exportsPath(workshop.id)}/${created.id}`, { token: ada.token })
          ).body;
          return current.state !== 'pending';
        },
        'the export made after its lease',
        15_000,
      );
      expect(current.state).toBe('success');
      expect((await fetch(on(flaky, current.url!))).status).toBe(200);
    } finally {
      await flaky.close();
      await gate.stop();
    }
  }, 30_000);

  it('with the storage away, an upload and a download answer 503 with Retry-After, not 500', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const away = await startTestServer({
      ...s3().filesConfig('away'),
      s3: { ...s3().settings, endpoint: `http://127.0.0.1:${closed}` },
    });
    try {
      const ada = await createUser(away, 'Ada');
      const res = await away.request('POST', '/v1/uploads', {
        token: ada.token,
        rawBody: multipart('file', 'x', { name: 'x.txt', type: 'text/plain' }),
      });
      expectError(res, 503, 'service_unavailable');
      expect(res.headers.get('retry-after')).toBe('1');
      // A file row whose bytes cannot be reached now.
      const row = await away.write(
        async (tx, { files }) =>
          (
            await tx
              .insert(files)
              .values({
                container: 'uploads',
                key: 'unreachable0000000000000',
                name: 'x.txt',
                mimetype: 'text/plain',
                size: 1,
                userId: ada.id,
              })
              .returning()
          )[0]!,
      );
      const link = new URL(publicFileUrl(away.deps.config, row));
      const download = await away.request('GET', link.pathname + link.search);
      expectError(download, 503, 'service_unavailable');
      expect(download.headers.get('retry-after')).toBe('1');
    } finally {
      await away.close();
    }
  });
});

/**
 * A TCP gate in front of the storage: open, it passes connections through; closed, it drops
 * every connection, those already open included, as a storage that went away does.
 */
async function storageGate(endpoint: string) {
  const target = Number(new URL(endpoint).port);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('close', () => sockets.delete(socket));
  };
  let closed = false;
  let refused = 0;
  const server = createServer((client) => {
    track(client);
    if (closed) {
      refused += 1;
      client.destroy();
      return;
    }
    const upstream = connect(target, '127.0.0.1');
    track(upstream);
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    refused: () => refused,
    close() {
      closed = true;
      for (const socket of sockets) socket.destroy();
    },
    open() {
      closed = false;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
