import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { replaceAvatar } from '../src/modules/uploads/avatars';
import { encodeAvatar } from '../src/modules/uploads/images';
import type { UserOutput } from '../src/modules/users/schemas';
import { createUser, expectError, multipart, pngImage, errorOf } from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer } from './helpers/cast';

const t = useServer();

async function fetchLink(url: string) {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

async function userRow(id: string) {
  const { users } = t.tables;
  const [row] = await t.db.select().from(users).where(eq(users.id, id));
  return row!;
}

function mailsTo(email: string) {
  const { outbox } = t.tables;
  return t.db
    .select()
    .from(outbox)
    .where(eq(outbox.to, email))
    .orderBy(sql`rowid`);
}

async function avatarFiles(userId: string) {
  const { files } = t.tables;
  return (await t.db.select().from(files).where(eq(files.userId, userId)).orderBy(files.createdAt, files.id)).filter(
    (f) => f.container === 'avatars',
  );
}

describe('GET /v1/user/me', () => {
  it('answers the authenticated user', async () => {
    const ada = await createUser(t, 'Ada');
    const res = await t.request<UserOutput>('GET', '/v1/user/me', { token: ada.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: ada.id,
      email: ada.email,
      name: 'Ada',
      guest: false,
      avatar_url: null,
      plan: { name: 'free', workshops_max_attendees: 100 },
      admin: false,
      locale: 'en',
      time_zone: 'UTC',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      confirmed_at: null,
      updated_at: expect.any(String),
    });
    expectError(await t.request<UserOutput>('GET', '/v1/user/me'), 401, 'unauthenticated');
  });
});

describe('PUT /v1/user/me', () => {
  it('changes the display name (display_name or name)', async () => {
    const ada = await createUser(t, 'Ada');
    const before = await userRow(ada.id);
    const res = await t.request<UserOutput>('PUT', '/v1/user/me', {
      token: ada.token,
      body: { display_name: '  Ada Lovelace ' },
    });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    const me = await t.request<UserOutput>('GET', '/v1/user/me', { token: ada.token });
    expect(me.body.name).toBe('Ada Lovelace');
    expect(me.body.updated_at >= before.updatedAt).toBe(true);

    expect(
      (await t.request<UserOutput>('PUT', '/v1/user/me', { token: ada.token, body: { name: 'Countess' } })).status,
    ).toBe(204);
    expect((await t.request<UserOutput>('GET', '/v1/user/me', { token: ada.token })).body.name).toBe('Countess');
  });

  it('refuses bad input and changes nothing', async () => {
    const ada = await createUser(t, 'Ada');
    const cases = [
      { display_name: '' },
      { display_name: '   ' },
      { display_name: 42 },
      { display_name: 'x'.repeat(201) },
      {},
      { admin: true },
    ];
    for (const body of cases) {
      const res = await t.request<UserOutput>('PUT', '/v1/user/me', { token: ada.token, body });
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path).toBe('display_name');
    }
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: '/v1/user/me', token: ada.token },
      { body: '{"display_name":', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: '/v1/user/me', token: ada.token },
      { body: 'display_name=x', contentType: 'text/plain' },
    );
    expectError(
      await t.request<UserOutput>('PUT', '/v1/user/me', { body: { display_name: 'Mallory' } }),
      401,
      'unauthenticated',
    );
    expect(await userRow(ada.id)).toMatchObject({ name: 'Ada', admin: false });
  });
});

describe('PUT /v1/user/me/avatar', () => {
  it('sets a re-encoded avatar of at most 512×512, replaces it and removes it', async () => {
    const ada = await createUser(t, 'Ada');
    const set = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: ada.token,
      rawBody: multipart('avatar', await pngImage(1000, 800), { name: 'me.png', type: 'image/png' }),
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      id: ada.id,
      name: 'Ada',
      avatar_url: expect.stringMatching(new RegExp(`^${t.url}/files/avatars/[\\w-]+\\?signature=`)),
    });
    expect((await t.request<UserOutput>('GET', '/v1/user/me', { token: ada.token })).body.avatar_url).toBe(
      set.body.avatar_url!,
    );

    const image = await fetchLink(set.body.avatar_url!);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(await sharp(image.bytes).metadata()).toMatchObject({ format: 'png', width: 512, height: 410 });
    const [first] = await avatarFiles(ada.id);
    expect(first).toBeDefined();

    // A small JPEG keeps its size and format.
    const jpeg = await sharp({ create: { width: 100, height: 50, channels: 3, background: '#00ff00' } })
      .jpeg()
      .toBuffer();
    const replaced = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: ada.token,
      rawBody: multipart('avatar', jpeg, { name: 'me.jpg', type: 'image/jpeg' }),
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.avatar_url!).not.toBe(set.body.avatar_url!);
    const second = await fetchLink(replaced.body.avatar_url!);
    expect(await sharp(second.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 100, height: 50 });
    // The previous avatar is gone, row and bytes.
    expect((await avatarFiles(ada.id)).map((f) => f.key)).not.toContain(first!.key);
    expect(existsSync(join(t.deps.config.filesDir, 'avatars', first!.key))).toBe(false);
    expectError(
      await t.request('GET', new URL(set.body.avatar_url!).pathname + new URL(set.body.avatar_url!).search),
      404,
      'not_found',
    );

    // A form without the avatar part removes it.
    const form = new FormData();
    form.append('note', 'no avatar');
    const removed = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', { token: ada.token, rawBody: form });
    expect(removed.status).toBe(200);
    expect(removed.body.avatar_url).toBeNull();
    expect(await avatarFiles(ada.id)).toHaveLength(0);
    expect((await userRow(ada.id)).avatarUrl).toBeNull();
  });

  it('removes the avatar when the request has no body at all', async () => {
    const ada = await createUser(t, 'Ada');
    await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: ada.token,
      rawBody: multipart('avatar', await pngImage(20, 20), { type: 'image/png' }),
    });
    const res = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', { token: ada.token });
    expect(res.status).toBe(200);
    expect(res.body.avatar_url).toBeNull();
  });

  it('refuses what is not an image, or not multipart, and keeps the current avatar', async () => {
    const ada = await createUser(t, 'Ada');
    const set = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: ada.token,
      rawBody: multipart('avatar', await pngImage(20, 20), { type: 'image/png' }),
    });
    const before = await avatarFiles(ada.id);

    const text = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: ada.token,
      rawBody: multipart('avatar', 'definitely not a picture', { name: 'x.png', type: 'image/png' }),
    });
    expectError(text, 400, 'invalid_request');
    expect(errorOf(text).details?.[0]?.path).toBe('avatar');
    const field = new FormData();
    field.append('avatar', 'a string, not a file');
    expectError(
      await t.request<UserOutput>('PUT', '/v1/user/me/avatar', { token: ada.token, rawBody: field }),
      400,
      'invalid_request',
    );
    expectError(
      await t.request<UserOutput>('PUT', '/v1/user/me/avatar', { token: ada.token, body: { avatar: 'x' } }),
      415,
      'unsupported_media_type',
    );
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: '/v1/user/me/avatar', token: ada.token },
      { body: 'broken', contentType: 'multipart/form-data; boundary=b' },
      [400, 'invalid_request'],
    );
    expectError(
      await t.request<UserOutput>('PUT', '/v1/user/me/avatar', { rawBody: multipart('avatar', await pngImage(5, 5)) }),
      401,
      'unauthenticated',
    );

    expect((await userRow(ada.id)).avatarUrl).toBe(set.body.avatar_url!);
    expect(await avatarFiles(ada.id)).toEqual(before);
    expect((await fetchLink(set.body.avatar_url!)).status).toBe(200);
  });
});

describe('replaceAvatar', () => {
  it('leaves no file behind and the old avatar in place when the write fails', async () => {
    const ada = await createUser(t, 'Ada');
    const set = await t.request<UserOutput>('PUT', '/v1/user/me/avatar', {
      token: ada.token,
      rawBody: multipart('avatar', await pngImage(20, 20), { type: 'image/png' }),
    });
    const before = await avatarFiles(ada.id);
    const onDisk = readdirSync(join(t.deps.config.filesDir, 'avatars')).sort();
    const image = await encodeAvatar(await pngImage(30, 30), 'avatar');
    await expect(
      replaceAvatar(t.deps, {
        userId: ada.id,
        image,
        current: async () => set.body.avatar_url!,
        store: async () => {
          throw new Error('refused');
        },
      }),
    ).rejects.toThrow('refused');
    expect(await avatarFiles(ada.id)).toEqual(before);
    expect(readdirSync(join(t.deps.config.filesDir, 'avatars')).sort()).toEqual(onDisk);
    expect((await fetchLink(set.body.avatar_url!)).status).toBe(200);
  });
});

describe('POST /v1/user/me/confirmation', () => {
  it('mails a new confirmation link to an unconfirmed user, and refuses once confirmed', async () => {
    const ada = await createUser(t, 'Ada');
    expect(await mailsTo(ada.email)).toHaveLength(1);
    const res = await t.request('POST', '/v1/user/me/confirmation', { token: ada.token });
    expect(res.status).toBe(204);
    const mails = await mailsTo(ada.email);
    expect(mails).toHaveLength(2);
    const token = /\/confirm\?token=(\S+)/.exec(mails[1]!.text)![1];
    expect((await t.request('POST', '/v1/auth/confirm', { token: ada.token, body: { token } })).status).toBe(204);
    expect((await t.request<UserOutput>('GET', '/v1/user/me', { token: ada.token })).body.confirmed_at).toEqual(
      expect.any(String),
    );

    expectError(await t.request('POST', '/v1/user/me/confirmation', { token: ada.token }), 409, 'conflict');
    expect(await mailsTo(ada.email)).toHaveLength(2);
    expectError(await t.request('POST', '/v1/user/me/confirmation'), 401, 'unauthenticated');
  });

  it('mails an address at most three times in ten minutes, whoever signed up with it', async () => {
    const victim = await createUser(t, 'Victim');
    for (let n = 0; n < 3; n++)
      expect((await t.request('POST', '/v1/user/me/confirmation', { token: victim.token })).status).toBe(204);
    const refused = await t.request('POST', '/v1/user/me/confirmation', { token: victim.token });
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(500);
    expect(await mailsTo(victim.email)).toHaveLength(4);
    // Another account's budget is its own.
    const other = await createUser(t, 'Other');
    expect((await t.request('POST', '/v1/user/me/confirmation', { token: other.token })).status).toBe(204);
  });
});
