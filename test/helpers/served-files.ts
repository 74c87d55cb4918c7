import { expect } from 'vitest';
import type { UploadOutput } from '../../src/modules/uploads/schemas';
import { publicFileUrl } from '../../src/modules/uploads/file-links';
import { saveFile } from '../../src/modules/uploads/storage';
import { multipart, pngImage, type TestUser } from './factories';
import type { TestServer } from './server';

/*
 * What an upload comes back as through its link (docs/operations.md#files-served-safely), the same
 * on every store: only real PNG, JPEG, GIF and WebP inline; anything else, whatever it was sent as,
 * bytes to save.
 */

const HTML = '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>';

interface Case {
  name: string;
  type: string;
  data: () => Promise<Uint8Array | string> | Uint8Array | string;
  /** `mimetype` in the upload's answer. */
  recorded: string;
  /** What the link answers: an image inline, or `null` for bytes to save. */
  inline: string | null;
}

const CASES: Case[] = [
  {
    name: 'evil.js',
    type: 'text/javascript',
    data: () => 'alert(document.cookie)',
    recorded: 'text/javascript',
    inline: null,
  },
  { name: 'page.html', type: 'text/html', data: () => HTML, recorded: 'text/html', inline: null },
  {
    name: 'logo.svg',
    type: 'image/svg+xml',
    data: () =>
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"><script>alert(1)</script></svg>',
    recorded: 'image/svg+xml',
    inline: null,
  },
  { name: 'plan.png', type: 'image/png', data: () => pngImage(12, 8), recorded: 'image/png', inline: 'image/png' },
  { name: 'fake.png', type: 'image/png', data: () => HTML, recorded: 'application/octet-stream', inline: null },
];

/**
 * Uploads each case through `server` as `user` and reads it back through its link, as `read`
 * turns it (another instance behind the same public URL, say): the bytes come back unchanged,
 * under the type the bytes prove and never the one the uploader claimed.
 */
export async function expectUploadsServedByTheirBytes(
  server: TestServer,
  user: TestUser,
  read: (url: string) => string = (url) => url,
): Promise<void> {
  for (const one of CASES) {
    const data = await one.data();
    const res = await server.request<UploadOutput>('POST', '/v1/uploads', {
      token: user.token,
      rawBody: multipart('file', data, { name: one.name, type: one.type }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.mimetype, one.name).toBe(one.recorded);
    await expectServed(read(res.body.url), one.name, data, one.inline);
  }
  // A file recorded under the type it claimed (as uploads were before their bytes were checked)
  // is judged by its bytes all the same.
  const old = await saveFile(server.deps, {
    userId: user.id,
    name: 'old.png',
    mimetype: 'image/png',
    data: Buffer.from(HTML),
  });
  await expectServed(read(publicFileUrl(server.deps.config, old)), 'old.png', HTML, null);
}

async function expectServed(url: string, name: string, data: Uint8Array | string, inline: string | null) {
  const served = await fetch(url);
  expect(served.status, name).toBe(200);
  expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(data)), name).toBe(true);
  expect(served.headers.get('x-content-type-options'), name).toBe('nosniff');
  expect(served.headers.get('content-type'), name).toBe(inline ?? 'application/octet-stream');
  expect(served.headers.get('content-disposition'), name).toBe(
    `${inline ? 'inline' : 'attachment'}; filename="${name}"; filename*=UTF-8''${name}`,
  );
}
