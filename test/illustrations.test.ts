import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { IllustrationOutput } from '../src/domain/steps';
import type { UploadOutput } from '../src/modules/uploads/schemas';
import { expectError, seedCurrentStep, seedFile, seedWorkshop, seedWorkshopWith, errorOf } from './helpers/factories';
import { expectFieldsRefused, expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [facilitator, participant, stranger] = useUsers(t, 'Fay', 'Pat', 'Stan');

/** A workshop with a participant and one step. */
async function setup() {
  const workshop = await seedWorkshopWith(t, facilitator, [participant]);
  const step = await seedCurrentStep(t, workshop.id, {});
  return { workshop, step, path: `/v1/workshops/${workshop.id}/steps/${step.id}/illustration` };
}

function blobOf(file: Awaited<ReturnType<typeof seedFile>>) {
  return { url: `http://example.test/${file.key}`, mimetype: file.mimetype, key: file.key, container: file.container };
}

async function actions(workshopId: string) {
  const { events } = t.tables;
  return t.db
    .select({ action: events.action, change: events.change })
    .from(events)
    .where(eq(events.workshopId, workshopId))
    .orderBy(events.seq);
}

function expectUrls(body: IllustrationOutput, file: { container: string; key: string }) {
  const base = `${t.url}/files/${file.container}/${file.key}?`;
  expect(body.public_url.startsWith(base), body.public_url).toBe(true);
  expect(body.public_url).toMatch(/signature=/);
  for (const mode of ['crop', 'resize'] as const) {
    const url: string = body[`${mode}_url`];
    expect(url.startsWith(base), url).toBe(true);
    expect(url).toContain(`mode=${mode}`);
    expect(url).toContain('width={{width}}');
    expect(url).toContain('height={{height}}');
  }
}

describe('step illustration', () => {
  it('sets, reads, re-aligns and removes an illustration', async () => {
    const { workshop, path } = await setup();
    const file = await seedFile(t, facilitator, { name: 'board.png' });
    expectError(await t.request('GET', path, { token: participant.token }), 404, 'not_found');

    const created = await t.request<IllustrationOutput>('POST', path, {
      token: facilitator.token,
      body: { blob: blobOf(file) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'board.png',
      align: 'above',
      public_url: expect.any(String),
      crop_url: expect.any(String),
      resize_url: expect.any(String),
    });
    expectUrls(created.body, file);

    const read = await t.request<IllustrationOutput>('GET', path, { token: participant.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, name: 'board.png', align: 'above' });
    expectUrls(read.body, file);

    const updated = await t.request<IllustrationOutput>('PUT', path, {
      token: facilitator.token,
      body: { align: 'left' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, name: 'board.png', align: 'left' });

    const removed = await t.request('DELETE', path, { token: facilitator.token });
    expect(removed.status).toBe(204);
    expectError(await t.request('GET', path, { token: facilitator.token }), 404, 'not_found');
    expectError(await t.request('DELETE', path, { token: facilitator.token }), 404, 'not_found');
    expectError(await t.request('PUT', path, { token: facilitator.token, body: { align: 'above' } }), 404, 'not_found');

    const log = await actions(workshop.id);
    expect(log.map((e) => e.action)).toEqual(['addIllustration', 'updateIllustration', 'removeIllustration']);
    expect(log[0]!.change.illustration).toMatchObject({ id: created.body.id, name: 'board.png', align: 'above' });
    expect(log[1]!.change.changes).toEqual({ align: ['above', 'left'] });
    expect(log[2]!.change.illustration).toMatchObject({ id: created.body.id, align: 'left' });
  });

  it('takes a name and alignment, and replaces an existing illustration', async () => {
    const { workshop, step, path } = await setup();
    const first = await seedFile(t, facilitator, { name: 'one.png' });
    const second = await seedFile(t, facilitator, { name: 'two.jpg', mimetype: 'image/jpeg' });
    const a = await t.request<IllustrationOutput>('POST', path, {
      token: facilitator.token,
      body: { name: 'Map', align: 'left', blob: blobOf(first) },
    });
    expect(a.body).toMatchObject({ name: 'Map', align: 'left' });
    const b = await t.request<IllustrationOutput>('POST', path, {
      token: facilitator.token,
      body: { blob: blobOf(second) },
    });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ name: 'two.jpg', align: 'above' });
    expect(b.body.id).not.toBe(a.body.id);
    expectUrls(b.body, second);
    const rows = await t.db
      .select()
      .from(t.tables.stepIllustrations)
      .where(eq(t.tables.stepIllustrations.stepId, step.id));
    expect(rows.map((r) => r.id)).toEqual([b.body.id]);
    expect((await actions(workshop.id)).map((e) => e.action)).toEqual([
      'addIllustration',
      'removeIllustration',
      'addIllustration',
    ]);
  });

  it('refuses unknown files, non-images and bad members, changing nothing', async () => {
    const { workshop, path } = await setup();
    const image = await seedFile(t, facilitator);
    const pdf = await seedFile(t, facilitator, { name: 'notes.pdf', mimetype: 'application/pdf' });
    const svg = await seedFile(t, facilitator, { name: 'logo.svg', mimetype: 'image/svg+xml' });
    const cases: Array<[unknown, string]> = [
      [{ blob: { ...blobOf(image), key: 'no-such-key' } }, 'blob.key'],
      [{ blob: { ...blobOf(image), container: 'elsewhere' } }, 'blob.key'],
      [{ blob: blobOf(pdf) }, 'blob.mimetype'],
      [{ blob: { ...blobOf(svg), mimetype: 'image/png' } }, 'blob.mimetype'],
      [{}, 'blob'],
      [{ blob: { container: 'uploads' } }, 'blob.key'],
      [{ blob: { key: image.key } }, 'blob.container'],
      [{ blob: blobOf(image), align: 'right' }, 'align'],
      [{ blob: blobOf(image), name: '' }, 'name'],
    ];
    await expectFieldsRefused((body) => t.request('POST', path, { token: facilitator.token, body }), cases);
    await expectRawBodyRefused(
      t,
      { path: path, token: facilitator.token },
      { body: '{', contentType: 'application/json' },
      [400, 'invalid_request'],
    );
    await expectRawBodyRefused(t, { path: path, token: facilitator.token }, { body: 'x', contentType: 'text/plain' });

    await t.request('POST', path, { token: facilitator.token, body: { blob: blobOf(image) } });
    const bad = await t.request('PUT', path, { token: facilitator.token, body: { align: 'below' } });
    expectError(bad, 400, 'invalid_request');
    expect(errorOf(bad).details?.[0]?.path).toBe('align');
    expect((await t.request<IllustrationOutput>('GET', path, { token: facilitator.token })).body.align).toBe('above');
    expect((await actions(workshop.id)).map((e) => e.action)).toEqual(['addIllustration']);
  });

  it('hides the illustration from strangers and keeps participants to reading', async () => {
    const { workshop, path } = await setup();
    const image = await seedFile(t, facilitator);
    await t.request('POST', path, { token: facilitator.token, body: { blob: blobOf(image) } });
    for (const [method, body] of [
      ['GET'],
      ['POST', { blob: blobOf(image) }],
      ['PUT', { align: 'left' }],
      ['DELETE'],
    ] as const) {
      expectError(await t.request(method, path, { token: stranger.token, body }), 404, 'not_found');
    }
    expect((await t.request<IllustrationOutput>('GET', path, { token: participant.token })).status).toBe(200);
    for (const [method, body] of [['POST', { blob: blobOf(image) }], ['PUT', { align: 'left' }], ['DELETE']] as const) {
      expectError(await t.request(method, path, { token: participant.token, body }), 403, 'forbidden');
    }
    expect((await t.request<IllustrationOutput>('GET', path, { token: participant.token })).body.align).toBe('above');
    expect(await actions(workshop.id)).toHaveLength(1);
  });

  it('answers 404 for a step of another workshop or an unknown step', async () => {
    const { step } = await setup();
    const other = await seedWorkshop(t, facilitator);
    const image = await seedFile(t, facilitator);
    const foreign = `/v1/workshops/${other.id}/steps/${step.id}/illustration`;
    expectError(
      await t.request('POST', foreign, { token: facilitator.token, body: { blob: blobOf(image) } }),
      404,
      'not_found',
    );
    expectError(await t.request('GET', foreign, { token: facilitator.token }), 404, 'not_found');
    const unknown = `/v1/workshops/${other.id}/steps/nope/illustration`;
    expectError(
      await t.request('POST', unknown, { token: facilitator.token, body: { blob: blobOf(image) } }),
      404,
      'not_found',
    );
  });

  it('refuses writes in an archived workshop', async () => {
    const { workshop, path } = await setup();
    const image = await seedFile(t, facilitator);
    await t.request('POST', path, { token: facilitator.token, body: { blob: blobOf(image) } });
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, workshop.id)),
    );
    expectError(
      await t.request('POST', path, { token: facilitator.token, body: { blob: blobOf(image) } }),
      409,
      'workshop_archived',
    );
    expectError(
      await t.request('PUT', path, { token: facilitator.token, body: { align: 'left' } }),
      409,
      'workshop_archived',
    );
    expectError(await t.request('DELETE', path, { token: facilitator.token }), 409, 'workshop_archived');
    expect((await t.request<IllustrationOutput>('GET', path, { token: participant.token })).body.align).toBe('above');
    expect(await actions(workshop.id)).toHaveLength(1);
  });

  it('goes away with its step', async () => {
    const { workshop, step, path } = await setup();
    await t.request('POST', path, { token: facilitator.token, body: { blob: blobOf(await seedFile(t, facilitator)) } });
    expect(
      (await t.request('DELETE', `/v1/workshops/${workshop.id}/steps/${step.id}`, { token: facilitator.token })).status,
    ).toBe(204);
    expect(
      await t.db.select().from(t.tables.stepIllustrations).where(eq(t.tables.stepIllustrations.stepId, step.id)),
    ).toEqual([]);
    expectError(await t.request('GET', path, { token: facilitator.token }), 404, 'not_found');
  });

  it('shows an image uploaded through /v1/uploads, resized through its resize_url', async () => {
    const { path } = await setup();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: 'red' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'red.png');
    const upload = await t.request<UploadOutput>('POST', '/v1/uploads', { token: facilitator.token, rawBody: form });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);

    const created = await t.request<IllustrationOutput>('POST', path, {
      token: facilitator.token,
      body: { blob: upload.body },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.name).toBe('red.png');
    const original = await fetch(created.body.public_url);
    expect(original.status).toBe(200);
    expect(Buffer.from(await original.arrayBuffer()).equals(png)).toBe(true);
    const resized = await fetch(created.body.resize_url.replace('{{width}}', '20').replace('{{height}}', '20'));
    expect(resized.status).toBe(200);
    const { width, height } = await sharp(Buffer.from(await resized.arrayBuffer())).metadata();
    expect([width, height]).toEqual([20, 15]);
  });
});
