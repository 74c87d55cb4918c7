import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExportOutput } from '../src/domain/events';
import { useServer, useSockets, useUsers } from './helpers/cast';
import { eventLog, expectError, inTurn } from './helpers/factories';
import { startTestServer } from './helpers/server';
import { until } from './helpers/wait';
import { buildScene, RETRO, type BuiltScene } from './helpers/workshop-scene';

const t = useServer();
const [fay, pat, sam, stranger] = useUsers(t, 'Fay Facilitator', 'Pat', 'Sam', 'Stranger');
const sockets = useSockets(t);

const exportsPath = (workshopId: string) => `/v1/workshops/${workshopId}/exports`;
const requestExport = (workshopId: string, body: unknown, user = fay) =>
  t.request<ExportOutput>('POST', exportsPath(workshopId), { token: user.token, body });

/** Polls the export until the worker has made it (or failed). */
async function finished(workshopId: string, exportId: string): Promise<ExportOutput> {
  let current: ExportOutput | undefined;
  await until(
    async () => {
      current = (await t.request<ExportOutput>('GET', `${exportsPath(workshopId)}/${exportId}`, { token: fay.token }))
        .body;
      return current.state !== 'pending';
    },
    `export ${exportId} to be made`,
    20_000,
  );
  return current!;
}

let scene: BuiltScene | undefined;
async function retro(): Promise<BuiltScene> {
  scene ??= await buildScene(t, [fay, pat, sam], RETRO);
  return scene;
}

describe('exports', () => {
  it('a facilitator asks for an export: 201 pending at once, then success with a signed link, live to facilitators', async () => {
    const { workshop } = await retro();
    const live = await sockets.joined(fay, workshop.id);
    const created = await requestExport(workshop.id, { type: 'csv' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      created_at: expect.any(String),
      type: 'csv',
      state: 'pending',
      url: null,
      message: null,
    });

    const pending = await live.next('export:updated', (p) => p.export.id === created.body.id);
    expect(pending.export.state).toBe('pending');
    // The first export of a run starts the export worker and loads its renderers: seconds on a busy machine.
    const done = await live.next(
      'export:updated',
      (p) => p.export.id === created.body.id && p.export.state !== 'pending',
      20_000,
    );
    expect(done.seq).toBe(pending.seq + 1);
    expect(done.export).toMatchObject({
      state: 'success',
      url: expect.stringMatching(new RegExp(`^${t.url}/files/exports/[\\w-]+\\?expires=\\d+&signature=`)),
    });
    expect(await finished(workshop.id, created.body.id)).toEqual(done.export);

    // The link works without a token, as a download named after the workshop.
    const download = await fetch(done.export.url!);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="Q4 retro\.csv"/);
    const bytes = Buffer.from(await download.arrayBuffer());
    // UTF-8 with a byte-order mark, so spreadsheets read accents right (fetch's text() would drop it).
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.startsWith('type,title,content,cluster,color,aside')).toBe(true);
    expect(text).toContain('Shorter standups');

    const actions = (await eventLog(t, workshop.id)).map((e) => e.action);
    expect(actions.slice(-2)).toEqual(['addExport', 'updateExport']);
  });

  it('participants see only the bare sequence number of export events, and may not export', async () => {
    const { workshop } = await retro();
    const participant = await sockets.joined(pat, workshop.id);
    const created = await requestExport(workshop.id, { type: 'native' });
    const bare = await participant.next('workshop:event', (p) => p.action === 'addExport');
    expect(bare).toEqual({ seq: expect.any(Number), workshop_id: workshop.id, action: 'addExport' });
    await finished(workshop.id, created.body.id);

    expectError(await requestExport(workshop.id, { type: 'pdf' }, pat), 403, 'forbidden');
    expectError(await t.request('GET', exportsPath(workshop.id), { token: pat.token }), 403, 'forbidden');
    expectError(
      await t.request('GET', `${exportsPath(workshop.id)}/${created.body.id}/download`, { token: pat.token }),
      403,
      'forbidden',
    );
    expectError(await t.request('GET', exportsPath(workshop.id), { token: stranger.token }), 404, 'not_found');
  });

  it('downloads every format with its type, through the link and through the authenticated route', async () => {
    const { workshop } = await retro();
    const expected = {
      pdf: 'application/pdf',
      xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      csv: 'text/csv; charset=utf-8',
      native: 'application/json',
    } as const;
    const created = [];
    for (const type of Object.keys(expected) as Array<keyof typeof expected>)
      created.push((await requestExport(workshop.id, { type })).body);
    for (const made of created) {
      const done = await finished(workshop.id, made.id);
      expect(done.state, `${made.type}: ${done.message}`).toBe('success');
      const viaLink = await fetch(done.url!);
      const viaRoute = await fetch(`${t.url}${exportsPath(workshop.id)}/${made.id}/download`, {
        headers: { authorization: `Bearer ${fay.token}` },
      });
      for (const res of [viaLink, viaRoute]) {
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe(expected[made.type]);
        expect(res.headers.get('content-disposition')).toContain('attachment; filename="Q4 retro.');
      }
      const [a, b] = [Buffer.from(await viaLink.arrayBuffer()), Buffer.from(await viaRoute.arrayBuffer())];
      expect(a.equals(b)).toBe(true);
      expect(a.byteLength).toBeGreaterThan(100);
    }
    // Listed newest first.
    const listed = (await t.request<ExportOutput[]>('GET', exportsPath(workshop.id), { token: fay.token })).body;
    expect(listed.slice(0, 5).map((e) => e.id)).toEqual(created.map((e) => e.id).reverse());
  });

  it('accepts the type as mimetype, and answers 400 for a missing, unknown or contradictory one', async () => {
    const { workshop } = await retro();
    const viaMimetype = await requestExport(workshop.id, { mimetype: 'xlsx' });
    expect(viaMimetype.status).toBe(201);
    expect(viaMimetype.body.type).toBe('xlsx');
    expectError(await requestExport(workshop.id, {}), 400, 'invalid_request');
    expectError(await requestExport(workshop.id, { type: 'odt' }), 400, 'invalid_request');
    expectError(await requestExport(workshop.id, { type: 'pdf', mimetype: 'csv' }), 400, 'invalid_request');
    expectError(await requestExport(workshop.id, { type: ['pdf'] }), 400, 'invalid_request');
    await finished(workshop.id, viaMimetype.body.id);
  });

  it('refuses a tampered or expired link, and a download before the file exists', async () => {
    const { workshop } = await retro();
    const done = await finished(workshop.id, (await requestExport(workshop.id, { type: 'csv' })).body.id);
    const url = new URL(done.url!);
    const tampered = new URL(url);
    tampered.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}xx`);
    expectError(await t.request('GET', `${tampered.pathname}${tampered.search}`), 403, 'forbidden');
    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expectError(await t.request('GET', `${extended.pathname}${extended.search}`), 403, 'forbidden');

    // A link signed for a moment already past is refused as expired.
    const { checkSignature } = await import('../src/modules/uploads/file-links');
    const { createHmac } = await import('node:crypto');
    const [container, key] = url.pathname.split('/').slice(2) as [string, string];
    const past = String(Math.floor(Date.now() / 1000) - 60);
    const signature = createHmac('sha256', t.deps.config.secret)
      .update(`file\n${container}\n${key}\n\n${past}`)
      .digest('base64url');
    expect(checkSignature(t.deps.config, { container, key }, { mode: '', expires: past, signature })).toEqual({
      ok: false,
      reason: { id: 'error.uploads.link_expired' },
    });
    const expired = await t.request('GET', `${url.pathname}?expires=${past}&signature=${signature}`);
    expectError(expired, 403, 'forbidden');
    expect(JSON.stringify(expired.body)).toContain('expired');
  });

  it('deleting an export removes its file; its link and download then answer 404', async () => {
    const { workshop } = await retro();
    const done = await finished(workshop.id, (await requestExport(workshop.id, { type: 'native' })).body.id);
    const key = new URL(done.url!).pathname.split('/')[3]!;
    const path = join(t.deps.config.filesDir, 'exports', key);
    expect(existsSync(path)).toBe(true);
    expect((await t.request('DELETE', `${exportsPath(workshop.id)}/${done.id}`, { token: fay.token })).status).toBe(
      204,
    );
    expect(existsSync(path)).toBe(false);
    expectError(await t.request('GET', `${new URL(done.url!).pathname}${new URL(done.url!).search}`), 404, 'not_found');
    expectError(
      await t.request('GET', `${exportsPath(workshop.id)}/${done.id}`, { token: fay.token }),
      404,
      'not_found',
    );
    expectError(
      await t.request('DELETE', `${exportsPath(workshop.id)}/${done.id}`, { token: fay.token }),
      404,
      'not_found',
    );
    expect((await eventLog(t, workshop.id)).at(-1)).toMatchObject({
      action: 'removeExport',
      change: { export: { id: done.id } },
    });
  });

  it('an archived workshop refuses new exports but lists and serves the ones it has', async () => {
    const { workshop } = await retro();
    const done = await finished(workshop.id, (await requestExport(workshop.id, { type: 'csv' })).body.id);
    expect(
      (await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: fay.token, body: { state: 'archived' } }))
        .status,
    ).toBe(200);
    try {
      expectError(await requestExport(workshop.id, { type: 'csv' }), 409, 'workshop_archived');
      expect(
        (await t.request('GET', `${exportsPath(workshop.id)}/${done.id}/download`, { token: fay.token })).status,
      ).toBe(200);
    } finally {
      await t.request('PUT', `/v1/workshops/${workshop.id}`, { token: fay.token, body: { state: 'running' } });
    }
  });

  it("deleting the workshop kills its exports' links and removes their files", async () => {
    const workshop = (
      await t.request<{ id: string }>('POST', '/v1/workshops', { token: fay.token, body: { title: 'Short-lived' } })
    ).body;
    const done = await finished(workshop.id, (await requestExport(workshop.id, { type: 'csv' })).body.id);
    const link = new URL(done.url!);
    const path = join(t.deps.config.filesDir, 'exports', link.pathname.split('/')[3]!);
    expect(existsSync(path)).toBe(true);
    expect((await t.request('DELETE', `/v1/workshops/${workshop.id}`, { token: fay.token })).status).toBe(204);
    expectError(await t.request('GET', `${link.pathname}${link.search}`), 404, 'not_found');
    expect(existsSync(path)).toBe(false);
  });

  it('exports older than their links (7 days) are removed with their files', async () => {
    const workshop = (
      await t.request<{ id: string }>('POST', '/v1/workshops', { token: fay.token, body: { title: 'Old' } })
    ).body;
    const done = await finished(workshop.id, (await requestExport(workshop.id, { type: 'csv' })).body.id);
    const path = join(t.deps.config.filesDir, 'exports', new URL(done.url!).pathname.split('/')[3]!);
    const { pruneOldExports } = await import('../src/modules/exports/service');
    // The link says when it stops working, the same on every read: that is when the export goes.
    const expires = Number(new URL(done.url!).searchParams.get('expires'));
    expect(expires).toBe(Math.floor(Date.parse(done.created_at) / 1000) + 7 * 24 * 3600);
    const again = (await t.request<ExportOutput>('GET', `${exportsPath(workshop.id)}/${done.id}`, { token: fay.token }))
      .body;
    expect(again.url).toBe(done.url);
    expect(await pruneOldExports(t.deps, Date.now() + 6 * 24 * 3600 * 1000)).toBe(0);
    expect(await pruneOldExports(t.deps, Date.now() + 8 * 24 * 3600 * 1000)).toBeGreaterThanOrEqual(1);
    expect(existsSync(path)).toBe(false);
    expect((await t.request<ExportOutput[]>('GET', exportsPath(workshop.id), { token: fay.token })).body).toEqual([]);
    expect((await eventLog(t, workshop.id)).at(-1)).toMatchObject({ action: 'removeExport', userId: null });
  });

  it('an export whose runner died is made by the next instance once its lease has run out, and not before', async () => {
    const workshop = (
      await t.request<{ id: string }>('POST', '/v1/workshops', { token: fay.token, body: { title: 'Orphan' } })
    ).body;
    // As a runner leaves them when its process dies mid-export: pending, with a lease.
    const orphan = (leaseUntil: string) =>
      t.write(async (tx, { workshopExports }) => {
        const [row] = await tx
          .insert(workshopExports)
          .values({ workshopId: workshop.id, type: 'csv', requestedBy: fay.id, leaseUntil, attempts: 1 })
          .returning();
        return row!;
      });
    const expired = await orphan(new Date(Date.now() - 1000).toISOString());
    const held = await orphan(new Date(Date.now() + 60_000).toISOString());
    const second = await startTestServer({}, { shareDatabaseOf: t });
    try {
      expect((await finished(workshop.id, expired.id)).state).toBe('success');
      const still = (
        await t.request<ExportOutput>('GET', `${exportsPath(workshop.id)}/${held.id}`, { token: fay.token })
      ).body;
      expect(still.state).toBe('pending');
    } finally {
      await second.close();
    }
  });

  it('refuses a sixth pending export of a workshop with 409, and takes new ones once they are made', async () => {
    const workshop = (
      await t.request<{ id: string }>('POST', '/v1/workshops', { token: fay.token, body: { title: 'Busy' } })
    ).body;
    // Pending exports another instance holds: this one's runner leaves them alone.
    const held = await inTurn(5, () =>
      t.write(async (tx, { workshopExports }) => {
        const [row] = await tx
          .insert(workshopExports)
          .values({
            workshopId: workshop.id,
            type: 'pdf',
            requestedBy: fay.id,
            leaseUntil: new Date(Date.now() + 60_000).toISOString(),
          })
          .returning();
        return row!;
      }),
    );
    const refused = await requestExport(workshop.id, { type: 'csv' });
    expectError(refused, 409, 'conflict');
    expect(JSON.stringify(refused.body)).toContain('still being made');
    const { eq } = await import('drizzle-orm');
    await t.write((tx, { workshopExports }) => tx.delete(workshopExports).where(eq(workshopExports.id, held[0]!.id)));
    expect((await requestExport(workshop.id, { type: 'csv' })).status).toBe(201);
  });

  it('sweeps export files no export refers to, once they are old enough not to be on their way', async () => {
    const { mkdirSync, utimesSync, writeFileSync } = await import('node:fs');
    const folder = join(t.deps.config.filesDir, 'exports');
    mkdirSync(folder, { recursive: true });
    const stray = join(folder, 'strayfile0000000000000');
    const fresh = join(folder, 'freshfile0000000000000');
    writeFileSync(stray, 'left by a dead render');
    writeFileSync(fresh, 'being recorded');
    const old = (Date.now() - 3_600_000) / 1000;
    utimesSync(stray, old, old);
    const { sweepStrayBlobs } = await import('../src/modules/uploads/stray-sweep');
    const done = await finished(
      (await retro()).workshop.id,
      (await requestExport((await retro()).workshop.id, { type: 'csv' })).body.id,
    );
    const kept = join(folder, new URL(done.url!).pathname.split('/')[3]!);
    utimesSync(kept, old, old);
    expect(await sweepStrayBlobs(t.deps, 'exports')).toEqual({ removed: 1, next: undefined });
    expect([existsSync(stray), existsSync(fresh), existsSync(kept)]).toEqual([false, true, true]);
  });

  it('reaches a stray export file however many files sort before it, a page per sweep', async () => {
    const { mkdirSync, rmSync, utimesSync, writeFileSync } = await import('node:fs');
    const folder = join(t.deps.config.filesDir, 'exports');
    mkdirSync(folder, { recursive: true });
    // A page's worth of files that are no strays (on their way to being recorded), first by name.
    const ahead = Array.from({ length: 1_000 }, (_, index) => join(folder, `--ahead${String(index).padStart(4, '0')}`));
    for (const path of ahead) writeFileSync(path, 'being recorded');
    const stray = join(folder, 'zz-stray000000000000000');
    writeFileSync(stray, 'left by a dead render');
    const old = (Date.now() - 3_600_000) / 1000;
    utimesSync(stray, old, old);
    const { sweepStrayBlobs } = await import('../src/modules/uploads/stray-sweep');
    try {
      const first = await sweepStrayBlobs(t.deps, 'exports');
      expect(first).toEqual({ removed: 0, next: `exports/--ahead0999` });
      expect(existsSync(stray)).toBe(true);
      // The next sweep goes on where the last one stopped, until the end of the folder.
      let removed = 0;
      for (let after = first.next; after !== undefined;) {
        const page = await sweepStrayBlobs(t.deps, 'exports', { after });
        removed += page.removed;
        after = page.next;
      }
      expect(removed).toBe(1);
      expect(existsSync(stray)).toBe(false);
    } finally {
      for (const path of ahead) rmSync(path, { force: true });
    }
  });

  it('a download of a pending export answers 409', async () => {
    const { workshop } = await retro();
    // Two exports asked together: the second waits while the first is made.
    await requestExport(workshop.id, { type: 'pdf' });
    const second = (await requestExport(workshop.id, { type: 'pdf' })).body;
    expectError(
      await t.request('GET', `${exportsPath(workshop.id)}/${second.id}/download`, { token: fay.token }),
      409,
      'conflict',
    );
    await finished(workshop.id, second.id);
  });
});
