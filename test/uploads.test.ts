import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import type { UploadOutput } from '../src/modules/uploads/schemas';
import { imageUrlTemplate, publicFileUrl } from '../src/modules/uploads/file-links';
import { deleteFile, findFile, readFile, saveFile } from '../src/modules/uploads/storage';
import { expectError, multipart, pngImage, errorOf } from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';
import type { OpenApiDocument } from './helpers/openapi';
import { expectUploadsServedByTheirBytes } from './helpers/served-files';

const t = useServer();
const [ada] = useUsers(t, 'Ada');

/** Fetches an absolute link of this server without a token. */
async function fetchLink(url: string) {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function fileCount() {
  return (await t.db.select().from(t.tables.files)).length;
}

async function uploadPng(width: number, height: number, name = 'picture.png') {
  const res = await t.request<UploadOutput>('POST', '/v1/uploads', {
    token: ada.token,
    rawBody: multipart('file', await pngImage(width, height), { name, type: 'image/png' }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { url: string; key: string; container: string; mimetype: string; size: number };
}

describe('POST /v1/uploads', () => {
  it('stores a real PNG that downloads through its signed link without a token', async () => {
    const png = await pngImage(30, 20);
    const res = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', png, { name: 'C:\\fakepath\\plan.png', type: 'image/png' }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      url: expect.any(String),
      key: expect.any(String),
      container: 'uploads',
      mimetype: 'image/png',
      size: png.length,
    });
    expect(res.body.key).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(res.body.url).toMatch(
      new RegExp(`^${t.url}/files/uploads/${res.body.key}\\?expires=\\d+&signature=[\\w-]+$`),
    );

    const row = (await findFile(t.deps.database.db, res.body))!;
    expect(row).toMatchObject({ name: 'plan.png', mimetype: 'image/png', size: png.length, userId: ada.id });
    expect(readFileSync(join(t.deps.config.filesDir, 'uploads', res.body.key))).toEqual(png);

    const download = await fetchLink(res.body.url);
    expect(download.status).toBe(200);
    expect(download.bytes).toEqual(png);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(download.headers.get('content-length')).toBe(String(png.length));
    expect(download.headers.get('content-disposition')).toMatch(/^inline; filename="plan\.png"/);
    expect(download.headers.get('cache-control')).toMatch(/^private, max-age=\d+/);
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    const maxAge = Number(/max-age=(\d+)/.exec(download.headers.get('cache-control')!)![1]);
    expect(maxAge).toBeGreaterThan(7 * 24 * 3600 - 60);
    expect(maxAge).toBeLessThanOrEqual(7 * 24 * 3600 + 3600);
  });

  it('never serves a script, a page or an SVG as what its uploader claimed, only real PNG, JPEG, GIF and WebP inline', async () => {
    await expectUploadsServedByTheirBytes(t, ada);
  });

  it('keeps any file type, falls back to application/octet-stream and encodes odd names safely', async () => {
    const typed = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', 'a,b\n1,2\n', { name: 'données "1".csv', type: 'text/csv' }),
    });
    expect(typed.status).toBe(201);
    expect(typed.body).toMatchObject({ mimetype: 'text/csv', size: 8 });
    const download = await fetchLink(typed.body.url);
    expect(download.bytes.toString()).toBe('a,b\n1,2\n');
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="donn_es _1_.csv"; filename*=UTF-8''donn%C3%A9es%20%221%22.csv`,
    );

    // A part that declares no type at all.
    const boundary = 'XyZ';
    const raw = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob"\r\n\r\n\x00\x01binary\r\n--${boundary}--\r\n`;
    const untyped = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: raw,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(untyped.status).toBe(201);
    expect(untyped.body).toMatchObject({ mimetype: 'application/octet-stream', size: 8 });
    expect((await findFile(t.deps.database.db, untyped.body))!.name).toBe('blob');

    const declaredNothing = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', 'x', { name: 'x.bin' }),
    });
    expect(declaredNothing.body.mimetype).toBe('application/octet-stream');
  });

  it('refuses bad input and changes nothing', async () => {
    const before = await fileCount();
    const missing = new FormData();
    missing.append('other', new Blob(['x']), 'x.txt');
    const noFile = await t.request<UploadOutput>('POST', '/v1/uploads', { token: ada.token, rawBody: missing });
    expectError(noFile, 400, 'invalid_request');
    expect(errorOf(noFile).details).toEqual([{ path: 'file', message: expect.any(String) }]);

    const text = new FormData();
    text.append('file', 'just a string');
    const notAFile = await t.request<UploadOutput>('POST', '/v1/uploads', { token: ada.token, rawBody: text });
    expectError(notAFile, 400, 'invalid_request');
    expect(errorOf(notAFile).details?.[0]?.path).toBe('file');

    expectError(
      await t.request<UploadOutput>('POST', '/v1/uploads', { token: ada.token, body: { file: 'x' } }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await t.request<UploadOutput>('POST', '/v1/uploads', { token: ada.token }),
      415,
      'unsupported_media_type',
    );
    await expectRawBodyRefused(
      t,
      { path: '/v1/uploads', token: ada.token },
      { body: 'garbage', contentType: 'multipart/form-data; boundary=nope' },
      [400, 'invalid_request'],
    );
    expectError(
      await t.request<UploadOutput>('POST', '/v1/uploads', { rawBody: multipart('file', 'x') }),
      401,
      'unauthenticated',
    );
    expect(await fileCount()).toBe(before);
  });

  it('caps uploads at 20 MiB', async () => {
    const before = await fileCount();
    const big = multipart('file', new Uint8Array(20 * 1024 * 1024 + 1), { name: 'big.bin' });
    expectError(
      await t.request<UploadOutput>('POST', '/v1/uploads', { token: ada.token, rawBody: big }),
      413,
      'payload_too_large',
    );
    expect(await fileCount()).toBe(before);
  });
});

describe('GET /files/:container/:key', () => {
  it('refuses tampered, unsigned and expired links and hides nothing behind them', async () => {
    const { url, key } = await uploadPng(10, 10);
    const signature = new URL(url).searchParams.get('signature')!;
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expectError(
      await t.request(
        'GET',
        new URL(url.replace(signature, flipped)).pathname + new URL(url.replace(signature, flipped)).search,
      ),
      403,
      'forbidden',
    );
    expectError(await t.request('GET', `/files/uploads/${key}`), 403, 'forbidden');

    const later = new URL(url);
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
    expectError(await t.request('GET', later.pathname + later.search), 403, 'forbidden');

    const otherKey = new URL(url);
    otherKey.pathname = `/files/uploads/${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    expectError(await t.request('GET', otherKey.pathname + otherKey.search), 403, 'forbidden');

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 8 * 24 * 3600 * 1000);
    const old = new URL(publicFileUrl(t.deps.config, { container: 'uploads', key }));
    vi.useRealTimers();
    const expired = await t.request('GET', old.pathname + old.search);
    expectError(expired, 403, 'forbidden');
    expect(errorOf(expired).message).toMatch(/expired/);
  });

  it('answers 404 for a correctly signed link to a file that does not exist', async () => {
    const link = new URL(publicFileUrl(t.deps.config, { container: 'uploads', key: 'doesNotExist123' }));
    expectError(await t.request('GET', link.pathname + link.search), 404, 'not_found');
  });

  it('crops to exactly the requested size and resizes within it, in the same format', async () => {
    const upload = await uploadPng(300, 200);
    const crop = imageUrlTemplate(t.deps.config, upload, 'crop');
    expect(crop).toContain('&mode=crop&width={{width}}&height={{height}}');
    const cropped = await fetchLink(crop.replace('{{width}}', '50').replace('{{height}}', '80'));
    expect(cropped.status).toBe(200);
    expect(cropped.headers.get('content-type')).toBe('image/png');
    expect(cropped.headers.get('content-length')).toBe(String(cropped.bytes.length));
    expect(await sharp(cropped.bytes).metadata()).toMatchObject({ format: 'png', width: 50, height: 80 });

    const resize = imageUrlTemplate(t.deps.config, upload, 'resize');
    const resized = await fetchLink(resize.replace('{{width}}', '100').replace('{{height}}', '100'));
    expect(resized.status).toBe(200);
    expect(await sharp(resized.bytes).metadata()).toMatchObject({ format: 'png', width: 100, height: 67 });

    // The same template serves any size.
    const other = await fetchLink(crop.replace('{{width}}', '7').replace('{{height}}', '9'));
    expect(await sharp(other.bytes).metadata()).toMatchObject({ width: 7, height: 9 });
  });

  it('keeps a JPEG a JPEG', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff0000' } })
      .jpeg()
      .toBuffer();
    const res = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', jpeg, { name: 'red.jpg', type: 'image/jpeg' }),
    });
    const cropped = await fetchLink(
      imageUrlTemplate(t.deps.config, res.body, 'crop').replace('{{width}}', '16').replace('{{height}}', '32'),
    );
    expect(cropped.headers.get('content-type')).toBe('image/jpeg');
    expect(await sharp(cropped.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 16, height: 32 });
  });

  it('crops a TIFF into a WebP a browser shows, where the TIFF itself is only offered for saving', async () => {
    const tiff = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#00ff00' } })
      .tiff()
      .toBuffer();
    const res = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', tiff, { name: 'scan.tiff', type: 'image/tiff' }),
    });
    expect(res.body.mimetype).toBe('image/tiff');
    const whole = await fetchLink(res.body.url);
    expect(whole.headers.get('content-type')).toBe('application/octet-stream');
    expect(whole.headers.get('content-disposition')).toMatch(/^attachment; /);
    const cropped = await fetchLink(
      imageUrlTemplate(t.deps.config, res.body, 'crop').replace('{{width}}', '10').replace('{{height}}', '20'),
    );
    expect(cropped.headers.get('content-type')).toBe('image/webp');
    expect(cropped.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(await sharp(cropped.bytes).metadata()).toMatchObject({ format: 'webp', width: 10, height: 20 });
  });

  it('refuses bad sizes, a mode the link was not signed for, and modes on non-images', async () => {
    const upload = await uploadPng(40, 40);
    const crop = imageUrlTemplate(t.deps.config, upload, 'crop');
    const path = (url: string) => new URL(url).pathname + new URL(url).search;
    for (const [w, h] of [
      ['0', '10'],
      ['10', '4097'],
      ['ten', '10'],
      ['{{width}}', '10'],
    ]) {
      const res = await t.request('GET', path(crop).replace('%7B%7Bwidth%7D%7D', w!).replace('%7B%7Bheight%7D%7D', h!));
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toMatch(/width|height/);
    }
    const noSize = new URL(crop.replace('{{width}}', '1').replace('{{height}}', '1'));
    noSize.searchParams.delete('height');
    expectError(await t.request('GET', noSize.pathname + noSize.search), 400, 'invalid_request');
    expectError(await t.request('GET', path(upload.url) + '&mode=zoom&width=5&height=5'), 400, 'invalid_request');

    // The plain link and the crop link are signed for what they are.
    expectError(await t.request('GET', path(upload.url) + '&mode=crop&width=5&height=5'), 403, 'forbidden');
    expectError(
      await t.request(
        'GET',
        path(crop.replace('mode=crop', 'mode=resize').replace('{{width}}', '5').replace('{{height}}', '5')),
      ),
      403,
      'forbidden',
    );

    const text = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', 'hello', { name: 'a.txt', type: 'text/plain' }),
    });
    const textCrop = imageUrlTemplate(t.deps.config, text.body, 'crop')
      .replace('{{width}}', '5')
      .replace('{{height}}', '5');
    expectError(await t.request('GET', path(textCrop)), 400, 'invalid_request');

    // Declared an image, but is not one.
    const fake = await t.request<UploadOutput>('POST', '/v1/uploads', {
      token: ada.token,
      rawBody: multipart('file', 'not a png', { name: 'fake.png', type: 'image/png' }),
    });
    const fakeCrop = imageUrlTemplate(t.deps.config, fake.body, 'resize')
      .replace('{{width}}', '5')
      .replace('{{height}}', '5');
    expectError(await t.request('GET', path(fakeCrop)), 400, 'invalid_request');
  });
});

describe('storage', () => {
  it('saves, finds, reads and deletes files under filesDir/<container>/<key>', async () => {
    const data = new TextEncoder().encode('{"format":"workshop-native"}');
    const file = await saveFile(t.deps, {
      userId: ada.id,
      name: 'export.json',
      mimetype: 'application/json',
      data,
      container: 'exports',
    });
    expect(file).toMatchObject({
      container: 'exports',
      name: 'export.json',
      mimetype: 'application/json',
      size: data.length,
      userId: ada.id,
    });
    const path = join(t.deps.config.filesDir, 'exports', file.key);
    expect(existsSync(path)).toBe(true);
    expect(await findFile(t.deps.database.db, file)).toEqual(file);
    expect((await readFile(t.deps, file)).toString()).toBe('{"format":"workshop-native"}');
    expect(await findFile(t.deps.database.db, { container: '../exports', key: file.key })).toBeUndefined();

    const second = await saveFile(t.deps, { userId: null, name: 'b', mimetype: 'text/plain', data });
    expect(second.container).toBe('uploads');
    expect(second.key).not.toBe(file.key);

    await deleteFile(t.deps, file);
    expect(await findFile(t.deps.database.db, file)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
    const { files } = t.tables;
    expect(await t.db.select().from(files).where(eq(files.key, second.key))).toHaveLength(1);
  });

  it('describes its routes in the OpenAPI document', async () => {
    const res = await t.request<OpenApiDocument>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.paths['/v1/uploads']!.post.responses['201']).toBeDefined();
    expect(res.body.paths['/files/{container}/{key}']!.get).toBeDefined();
  });
});
