import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkshopOutput } from '../src/domain/workshops';
import { isPublicAddress } from '../src/lib/public-fetch';
import { useServer, useUsers } from './helpers/cast';
import { createUser, errorOf, expectError, type TestUser } from './helpers/factories';
import { startTestServer } from './helpers/server';
import type { TestServer } from './helpers/server';
import { buildScene, RETRO, type SceneSpec } from './helpers/workshop-scene';
import { comparable, nativeExport, nativeOf } from './helpers/native-files';

/** A plain HTTP server on 127.0.0.1 that records every request it gets. */
function localSite(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const hits: string[] = [];
  let server: Server;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      handler(req, res);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });
  return {
    hits,
    get port() {
      return (server.address() as AddressInfo).port;
    },
  };
}

const createFrom = (t: TestServer, user: TestUser, url: string, extra: Record<string, unknown> = {}) =>
  t.request<WorkshopOutput>('POST', '/v1/workshops', { token: user.token, body: { url, ...extra } });

const workshopCount = async (t: TestServer) => (await t.db.select({ n: count() }).from(t.tables.workshops))[0]!.n;

describe('creating a workshop from a native file', () => {
  const t = useServer({ importsPerMinute: 1_000 });
  const [fay, pat, sam] = useUsers(t, 'Fay', 'Pat', 'Sam');

  it("re-imports a native export from the service's own signed link into an equal workshop, canvas included", async () => {
    const { workshop } = await buildScene(t, [fay, pat, sam], RETRO);
    const original = await nativeOf(t, fay, workshop.id);
    expect(original).toMatchObject({ format: 'workshop-native', version: 1 });
    expect(original.canvas?.zones).toHaveLength(2);
    expect(typeof original.canvas?.document).toBe('string');

    const link = (await nativeExport(t, fay, workshop.id)).url!;
    const created = await createFrom(t, fay, link);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.id).not.toBe(workshop.id);
    expect(created.body.title).toBe('Q4 retro');

    const copy = await nativeOf(t, fay, created.body.id);
    expect(comparable(copy)).toEqual(comparable(original));
    // The canvas document of the copy holds the zones and placements under the new ids.
    const canvas = (
      await t.request<{ zones: Array<{ name: string; cluster_id: string | null }> }>(
        'GET',
        `/v1/workshops/${created.body.id}/canvas`,
        { token: fay.token },
      )
    ).body;
    expect(canvas.zones.map((z) => z.name)).toEqual(['Now', 'Later']);
    expect(canvas.zones.every((z) => z.cluster_id !== null)).toBe(true);
  });

  it('round-trips random workshops', async () => {
    const word = fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }).map((s) => s.trim() || 'x');
    const idea = fc.record({
      title: word,
      content: fc.option(word, { nil: undefined }),
      aside: fc.boolean(),
      votes: fc.array(fc.record({ by: fc.constantFrom(1, 2), value: fc.constantFrom(1, -1) }), { maxLength: 2 }),
      ratings: fc.uniqueArray(
        fc.record({ by: fc.constantFrom(1, 2), criterion: fc.constant(0), value: fc.constantFrom(0, 1, 2, 3, 4) }),
        { maxLength: 2, selector: (r) => r.by },
      ),
      comments: fc.array(fc.record({ by: fc.constantFrom(0, 1, 2), content: word }), { maxLength: 2 }),
      items: fc.array(fc.record({ by: fc.constantFrom(0, 1), section: fc.constant(0), content: word }), {
        maxLength: 1,
      }),
    });
    const spec: fc.Arbitrary<SceneSpec> = fc.record({
      title: word,
      steps: fc.array(fc.record({ name: word, instructions: word }), { maxLength: 3 }),
      criteria: fc.constant([{ title: 'Value', scale: 4 as const }]),
      sections: fc.constant(['Notes']),
      clusters: fc.array(
        fc.record({ title: word, color: fc.constantFrom('yellow', 'blue'), ideas: fc.array(idea, { maxLength: 3 }) }),
        { maxLength: 3 },
      ),
      zones: fc.array(
        fc.record({
          name: word,
          x: fc.integer({ min: 0, max: 20 }),
          y: fc.integer({ min: 0, max: 20 }),
          cols: fc.integer({ min: 1, max: 10 }),
          rows: fc.integer({ min: 1, max: 10 }),
        }),
        { maxLength: 2 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(spec, async (scene) => {
        // Titles must be unique for the scene builder's bookkeeping; the service does not care.
        scene.clusters.forEach((c, i) => {
          c.title = `${c.title} ${i}`;
          c.ideas.forEach((d, j) => (d.title = `${d.title} ${i}.${j}`));
        });
        const { workshop } = await buildScene(t, [fay, pat, sam], scene);
        const original = await nativeOf(t, fay, workshop.id);
        const created = await createFrom(t, fay, (await nativeExport(t, fay, workshop.id)).url!);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(comparable(await nativeOf(t, fay, created.body.id))).toEqual(comparable(original));
      }),
      { numRuns: 6, seed: 20261123 },
    );
  });

  it('refuses bad files with 400 naming the problem, and creates nothing', async () => {
    const { workshop } = await buildScene(t, [fay, pat, sam], RETRO);
    const good = await nativeOf(t, fay, workshop.id);
    const { saveFile } = await import('../src/modules/uploads/storage');
    const { publicFileUrl } = await import('../src/modules/uploads/file-links');
    const linkTo = async (body: string) =>
      publicFileUrl(
        t.deps.config,
        await saveFile(t.deps, {
          userId: fay.id,
          name: 'w.json',
          mimetype: 'application/json',
          data: Buffer.from(body),
        }),
      );
    const broken = structuredClone(good);
    broken.votes[0]!.card_id = 'nope';
    const wrongParent = structuredClone(good);
    wrongParent.cards.find((c) => c.type === 'idea')!.parent_id = wrongParent.cards.find((c) => c.type === 'idea')!.id;
    const badRating = structuredClone(good);
    badRating.ratings[0]!.value = 7;
    const cases: Array<[string, string, RegExp]> = [
      ['not json', '{"format":', /not JSON/],
      ['another format', JSON.stringify({ ...good, format: 'other' }), /format/],
      ['another version', JSON.stringify({ ...good, version: 2 }), /version 1/],
      ['a missing member', JSON.stringify({ ...good, cards: undefined }), /cards/],
      ['a vote on no card', JSON.stringify(broken), /votes\[0\]\.card_id/],
      ['an idea whose parent is an idea', JSON.stringify(wrongParent), /parent_id/],
      ['a rating off its scale', JSON.stringify(badRating), /scale/],
      [
        'a vote beyond what REST accepts',
        JSON.stringify({ ...good, votes: [{ ...good.votes[0]!, value: 2 ** 62 }] }),
        /votes\.0\.value/,
      ],
      [
        'a short id beyond exact integers',
        JSON.stringify({ ...good, cards: good.cards.map((c, i) => (i === 0 ? { ...c, short_id: 1e20 } : c)) }),
        /short_id/,
      ],
      [
        'a color no card may have',
        JSON.stringify({
          ...good,
          cards: good.cards.map((c) => (c.type === 'cluster' ? { ...c, color: '<script>' } : c)),
        }),
        /color/,
      ],
      [
        'a canvas image that is not http(s)',
        JSON.stringify({
          ...good,
          canvas: { ...good.canvas!, image: { cols: 2, rows: 2, url: 'javascript:alert(1)' } },
        }),
        /canvas\.image\.url/,
      ],
      [
        'a zone of no size',
        JSON.stringify({ ...good, canvas: { ...good.canvas!, background: { cols: 0, rows: 10 } } }),
        /background/,
      ],
      ['a blank title', JSON.stringify({ ...good, workshop: { ...good.workshop, title: '   ' } }), /workshop\.title/],
      [
        'a NUL character in a comment',
        JSON.stringify({ ...good, comments: [{ ...good.comments[0]!, content: 'a\u0000b' }] }),
        /comments\.0\.content/,
      ],
      [
        'a sort by criterion without one',
        JSON.stringify({
          ...good,
          workshop: {
            ...good.workshop,
            view: { ...good.workshop.view, sort: 'criterium_average', sort_criterium_id: null },
          },
        }),
        /criterium_average/,
      ],
      [
        'more feedback than a file may hold',
        JSON.stringify({ ...good, comments: Array.from({ length: 25_001 }, () => good.comments[0]!) }),
        /25000/,
      ],
      [
        'a timestamp naming no instant',
        JSON.stringify({ ...good, comments: [{ ...good.comments[0]!, created_at: '2026-01-01T10:00:00-00' }] }),
        /comments\.0\.created_at/,
      ],
      [
        'a timestamp past the year 9999 in UTC',
        JSON.stringify({ ...good, votes: [{ ...good.votes[0]!, created_at: '9999-12-31T23:00:00-02:00' }] }),
        /votes\.0\.created_at/,
      ],
    ];
    const before = await workshopCount(t);
    for (const [what, body, message] of cases) {
      const res = await createFrom(t, fay, await linkTo(body));
      expectError(res, 400, 'invalid_request');
      expect(JSON.stringify(res.body), what).toMatch(message);
    }
    const link = new URL((await nativeExport(t, fay, workshop.id)).url!);
    link.searchParams.set('signature', 'x'.repeat(43));
    expectError(await createFrom(t, fay, link.href), 400, 'invalid_request');
    // A link whose file row outlived its bytes (an export deleted while being read).
    const { objectName } = await import('../src/modules/uploads/storage');
    const stored = await saveFile(t.deps, {
      userId: fay.id,
      name: 'w.json',
      mimetype: 'application/json',
      data: Buffer.from(JSON.stringify(good)),
    });
    await t.deps.files.delete(objectName(stored));
    const gone = await createFrom(t, fay, publicFileUrl(t.deps.config, stored));
    expectError(gone, 400, 'invalid_request');
    expect(JSON.stringify(gone.body)).toContain('No file has this link');
    expect(await workshopCount(t)).toBe(before);
  });

  it('stores the times a file gives in UTC, as the service writes its own', async () => {
    const { workshop } = await buildScene(t, [fay, pat, sam], RETRO);
    const good = await nativeOf(t, fay, workshop.id);
    const { saveFile } = await import('../src/modules/uploads/storage');
    const { publicFileUrl } = await import('../src/modules/uploads/file-links');
    const shifted = structuredClone(good);
    shifted.cards[0]!.created_at = '2026-01-01T12:00:00+02:00';
    shifted.comments[0]!.created_at = '2026-01-01 10:30:00Z';
    const stored = await saveFile(t.deps, {
      userId: fay.id,
      name: 'w.json',
      mimetype: 'application/json',
      data: Buffer.from(JSON.stringify(shifted)),
    });
    const created = await createFrom(t, fay, publicFileUrl(t.deps.config, stored));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const copy = await nativeOf(t, fay, created.body.id);
    expect(copy.cards.find((c) => c.short_id === shifted.cards[0]!.short_id)!.created_at).toBe(
      '2026-01-01T10:00:00.000Z',
    );
    expect(copy.comments.map((c) => c.created_at)).toContain('2026-01-01T10:30:00.000Z');
  });

  it("keeps authors only from the service's own exports: a file anyone wrote names no one but its importer", async () => {
    const { workshop } = await buildScene(t, [fay, pat, sam], RETRO);
    const good = await nativeOf(t, fay, workshop.id);
    expect(new Set(good.cards.map((c) => c.user_id)).size).toBeGreaterThan(1);
    const { saveFile } = await import('../src/modules/uploads/storage');
    const { publicFileUrl } = await import('../src/modules/uploads/file-links');
    // Sam uploads Fay's export as his own file and imports it: nothing may speak for Fay or Pat.
    const uploaded = await saveFile(t.deps, {
      userId: sam.id,
      name: 'w.json',
      mimetype: 'application/json',
      data: Buffer.from(JSON.stringify(good)),
    });
    const created = await createFrom(t, sam, publicFileUrl(t.deps.config, uploaded));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const copy = await nativeOf(t, sam, created.body.id);
    const authors = new Set(
      [...copy.cards, ...copy.votes, ...copy.ratings, ...copy.items, ...copy.comments].map((row) => row.user_id),
    );
    expect([...authors]).toEqual([sam.id]);
    // One rating per user, card and criterion still holds once every rater is Sam.
    const keys = copy.ratings.map((r) => `${r.card_id}/${r.criterium_id}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('limits imports from URLs per user and minute', async () => {
    const limited = await startTestServer({ importsPerMinute: 2 });
    try {
      const user = await createUser(limited, 'Lee');
      const attempt = () => createFrom(limited, user, 'http://10.0.0.1/file.json');
      expectError(await attempt(), 400, 'invalid_request');
      expectError(await attempt(), 400, 'invalid_request');
      const refused = await attempt();
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });
});

describe('fetching a native file from another host', () => {
  let served = '{}';
  const site = localSite((req, res) => {
    if (req.url === '/slow') return; // never answers
    if (req.url === '/broken-redirect') {
      res.writeHead(302, { location: 'http://[::1' });
      return res.end();
    }
    if (req.url?.startsWith('/redirect')) {
      res.writeHead(302, { location: new URL(req.url, 'http://x').searchParams.get('to')! });
      return res.end();
    }
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      // 11 MiB, without a Content-Length: the cap must hold while reading.
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < 11; i += 1) res.write(chunk);
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(served);
  });
  // Another local site that a redirect tries to reach: it must never be asked anything.
  const inner = localSite((_req, res) => res.end('{}'));

  const strict = useServer({ importsPerMinute: 1_000 });
  const [ada] = useUsers(strict, 'Ada');
  const lenient = useServer(() => ({
    importAllowHosts: ['127.0.0.1'],
    importTimeoutMs: 1_000,
    importsPerMinute: 1_000,
  }));
  const [bo] = useUsers(lenient, 'Bo');

  it('classifies addresses: only public unicast may be fetched', () => {
    for (const address of [
      '::127.0.0.1',
      '::7f00:1',
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      'not an address',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(address), address).toBe(true);
  });

  it('refuses loopback, private, link-local and mapped addresses, names resolving to them, and other schemes, fetching nothing', async () => {
    const port = site.port;
    const before = site.hits.length;
    const urls = [
      `http://127.0.0.1:${port}/file.json`,
      `http://localhost:${port}/file.json`,
      `http://[::1]:${port}/file.json`,
      `http://[::ffff:127.0.0.1]:${port}/file.json`,
      `http://[::ffff:7f00:1]:${port}/file.json`,
      'http://10.0.0.1/file.json',
      'http://169.254.169.254/latest/meta-data/',
      'http://0.0.0.0/',
      'file:///etc/passwd',
      'ftp://example.com/x.json',
      'gopher://127.0.0.1:70/',
      'not a url',
    ];
    const count = await workshopCount(strict);
    for (const url of urls) {
      const res = await createFrom(strict, ada, url);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.path, url).toBe('url');
    }
    expect(site.hits.length).toBe(before);
    expect(await workshopCount(strict)).toBe(count);
  });

  it('checks every redirect hop: an allowed host redirecting to a private one is refused before it is asked', async () => {
    const target = `http://localhost:${inner.port}/secret`;
    const res = await createFrom(
      lenient,
      bo,
      `http://127.0.0.1:${site.port}/redirect?to=${encodeURIComponent(target)}`,
    );
    expectError(res, 400, 'invalid_request');
    expect(errorOf(res).details?.[0]?.message).toBe('The address is not allowed: it is not public.');
    expect(inner.hits).toEqual([]);
  });

  it('says only that an address is not allowed, never what a name resolved to', async () => {
    for (const url of [`http://localhost:${site.port}/file.json`, `http://127.0.0.1:${site.port}/file.json`]) {
      const res = await createFrom(strict, ada, url);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).details?.[0]?.message, url).toBe('The address is not allowed: it is not public.');
    }
  });

  it('with IMPORT_ALLOW_HOSTS, fetches a named host; caps size and time; refuses what is not a native file', async () => {
    const source = await buildScene(strict, [ada], {
      ...RETRO,
      clusters: RETRO.clusters.map((c) => ({
        ...c,
        ideas: c.ideas.map((i) => ({ title: i.title, content: i.content })),
      })),
      zones: [],
    });
    served = JSON.stringify(await nativeOf(strict, ada, source.workshop.id));
    const created = await createFrom(lenient, bo, `http://127.0.0.1:${site.port}/file.json`, {
      title: 'From elsewhere',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.title).toBe('From elsewhere');
    // Authors unknown to this service become the importer.
    const cards = (
      await lenient.request<Array<{ user_id: string }>>('GET', `/v1/workshops/${created.body.id}/cards`, {
        token: bo.token,
      })
    ).body;
    expect(cards.length).toBe(6);

    const tooBig = await createFrom(lenient, bo, `http://127.0.0.1:${site.port}/huge`);
    expectError(tooBig, 400, 'invalid_request');
    expect(JSON.stringify(tooBig.body)).toContain('larger than 10485760 bytes');
    const slow = await createFrom(lenient, bo, `http://127.0.0.1:${site.port}/slow`);
    expectError(slow, 400, 'invalid_request');
    expect(JSON.stringify(slow.body)).toContain('too long');
    const broken = await createFrom(lenient, bo, `http://127.0.0.1:${site.port}/broken-redirect`);
    expectError(broken, 400, 'invalid_request');
    expect(JSON.stringify(broken.body)).toContain('redirects to something that is not a URL');
    served = '<html>not json</html>';
    expectError(await createFrom(lenient, bo, `http://127.0.0.1:${site.port}/file.json`), 400, 'invalid_request');
  });
});
