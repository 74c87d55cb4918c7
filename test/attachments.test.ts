import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { AttachmentOutput } from '../src/domain/attachments';
import type { UploadOutput } from '../src/modules/uploads/schemas';
import { eventLog, expectError, seedCurrentStep, seedFile, type TestUser, seedCardScene } from './helpers/factories';
import { expectFieldsRefused, expectRawBodyRefused } from './helpers/refusals';
import { useCast } from './helpers/cast';

const cast = useCast();
const { facilitator, participant, other, stranger } = cast;
const t = cast.t;

function scene() {
  return seedCardScene(cast, 'attachments');
}

/** Attaches a freshly seeded upload of `user`. */
async function attach(path: string, user: TestUser, extra: { name?: string } = {}) {
  const file = await seedFile(t, user, { name: 'sketch.png' });
  return t.request<AttachmentOutput>('POST', path, {
    token: user.token,
    body: { ...extra, blob: { key: file.key, container: file.container } },
  });
}

const attachmentRows = (workshopId: string) =>
  t.db.select().from(t.tables.attachments).where(eq(t.tables.attachments.workshopId, workshopId));

describe('attachments', () => {
  it('attaches an uploaded file, serves it through the signed url, lists and removes it', async () => {
    const s = await scene();
    const form = new FormData();
    form.append('file', new Blob(['hello attachment'], { type: 'text/plain' }), 'notes.txt');
    const upload = await t.request<UploadOutput>('POST', '/v1/uploads', { token: participant.token, rawBody: form });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);

    const created = await t.request<AttachmentOutput>('POST', s.path, {
      token: participant.token,
      body: { blob: upload.body },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'notes.txt',
      mimetype: 'text/plain',
      size: 16,
      url: expect.stringMatching(new RegExp(`^${t.url}/files/${upload.body.container}/${upload.body.key}\\?`)),
      user_id: participant.id,
      author_visibility: 'shown',
      created_at: expect.any(String),
    });
    const download = await fetch(created.body.url);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello attachment');

    const named = await attach(s.path, other, { name: 'Whiteboard photo' });
    expect(named.body).toMatchObject({
      name: 'Whiteboard photo',
      mimetype: 'image/png',
      size: 1234,
      user_id: other.id,
    });
    expect((await t.request('GET', s.path, { token: facilitator.token })).body).toEqual([created.body, named.body]);
    expect((await t.request('GET', `${s.path}/${created.body.id}`, { token: other.token })).body).toEqual(created.body);

    expect((await t.request('DELETE', `${s.path}/${created.body.id}`, { token: participant.token })).status).toBe(204);
    expectError(await t.request('GET', `${s.path}/${created.body.id}`, { token: participant.token }), 404, 'not_found');
    // The upload itself outlives the attachment.
    expect((await fetch(created.body.url)).status).toBe(200);

    const log = await eventLog(t, s.workshop.id);
    expect(log.map((e) => e.action)).toEqual(['addAttachment', 'addAttachment', 'removeAttachment']);
    expect(log[0]!.change).toEqual({ attachment: { ...created.body, card_id: s.card.id } });
    expect((log[2]!.change as any).attachment).toMatchObject({ id: created.body.id, card_id: s.card.id });
    expect((await attachmentRows(s.workshop.id)).map((r) => r.id)).toEqual([named.body.id]);
  });

  it('refuses unknown files, files of other users and malformed blobs with 400, changing nothing', async () => {
    const s = await scene();
    const othersFile = await seedFile(t, other);
    const mine = await seedFile(t, participant);
    const cases: Array<[unknown, string]> = [
      [{ blob: { key: 'nope', container: 'uploads' } }, 'blob.key'],
      [{ blob: { key: mine.key, container: 'elsewhere' } }, 'blob.key'],
      [{ blob: { key: othersFile.key, container: othersFile.container } }, 'blob.key'],
      [{ blob: { key: '../../etc/passwd', container: 'uploads' } }, 'blob.key'],
      [{ blob: { container: 'uploads' } }, 'blob.key'],
      [{ blob: { key: mine.key } }, 'blob.container'],
      [{ blob: 'nope' }, 'blob'],
      [{}, 'blob'],
      [{ name: '', blob: { key: mine.key, container: mine.container } }, 'name'],
    ];
    await expectFieldsRefused((body) => t.request('POST', s.path, { token: participant.token, body }), cases);
    await expectRawBodyRefused(t, { path: s.path, token: participant.token }, { body: 'x', contentType: 'text/plain' });
    expect(await attachmentRows(s.workshop.id)).toHaveLength(0);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(0);
  });

  it('answers 404 to strangers and for cards or attachments outside the workshop', async () => {
    const s = await scene();
    const elsewhere = await scene();
    const mine = await attach(s.path, participant);
    expectError(await t.request('GET', s.path, { token: stranger.token }), 404, 'not_found');
    expectError(await attach(s.path, stranger), 404, 'not_found');
    expectError(await t.request('GET', `${s.path}/${mine.body.id}`, { token: stranger.token }), 404, 'not_found');
    expectError(
      await attach(`/v1/workshops/${s.workshop.id}/cards/${elsewhere.card.id}/attachments`, participant),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `${elsewhere.path}/${mine.body.id}`, { token: facilitator.token }),
      404,
      'not_found',
    );
    expect(await attachmentRows(elsewhere.workshop.id)).toHaveLength(0);
  });

  it('follows the current step, and lets participants remove only their own attachments', async () => {
    const s = await scene();
    const pats = await attach(s.path, participant);
    expectError(await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: other.token }), 403, 'forbidden');
    await seedCurrentStep(t, s.workshop.id, { allow_attachment: false });
    expectError(await attach(s.path, other), 403, 'forbidden');
    expectError(await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: participant.token }), 403, 'forbidden');
    expect((await attach(s.path, facilitator)).status).toBe(201);
    expect((await t.request('DELETE', `${s.path}/${pats.body.id}`, { token: facilitator.token })).status).toBe(204);
    expect((await eventLog(t, s.workshop.id)).map((e) => [e.action, e.userId])).toEqual([
      ['addAttachment', participant.id],
      ['addAttachment', facilitator.id],
      ['removeAttachment', facilitator.id],
    ]);
  });

  it('refuses writes to an archived workshop with 409', async () => {
    const s = await scene();
    const kept = await attach(s.path, participant);
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, s.workshop.id)),
    );
    for (const user of [participant, facilitator]) {
      expectError(await attach(s.path, user), 409, 'workshop_archived');
      expectError(
        await t.request('DELETE', `${s.path}/${kept.body.id}`, { token: user.token }),
        409,
        'workshop_archived',
      );
    }
    expect((await t.request('GET', s.path, { token: other.token })).body).toEqual([kept.body]);
    expect(await eventLog(t, s.workshop.id)).toHaveLength(1);
  });
});
