import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { stringify } from 'csv-stringify/sync';
import type { CardOutput } from '../src/domain/cards';
import { expectError, seedCard, seedWorkshopWith, errorOf } from './helpers/factories';
import { expectRawBodyRefused } from './helpers/refusals';
import { useServer, useUsers } from './helpers/cast';

const t = useServer();
const [facilitator, participant, stranger] = useUsers(t, 'Fay', 'Pat', 'Stan');

const workshop = () => seedWorkshopWith(t, facilitator, [participant]);

function upload(workshopId: string, csv: string, user = facilitator, field = 'file') {
  const form = new FormData();
  form.append(field, new Blob([csv], { type: 'text/csv' }), 'cards.csv');
  return t.request<CardOutput[]>('PUT', `/v1/workshops/${workshopId}/cards`, { token: user.token, rawBody: form });
}

async function listed(workshopId: string) {
  const res = await t.request<CardOutput[]>('GET', `/v1/workshops/${workshopId}/cards`, { token: facilitator.token });
  expect(res.status).toBe(200);
  return res.body as any[];
}

async function snapshot(workshopId: string) {
  const { db } = t;
  const { cards, events, votes, workshops } = t.tables;
  return {
    cards: await db.select().from(cards).where(eq(cards.workshopId, workshopId)).orderBy(asc(cards.id)),
    votes: (await db.select().from(votes).where(eq(votes.workshopId, workshopId))).length,
    events: (await db.select().from(events).where(eq(events.workshopId, workshopId))).length,
    lastCardNumber: (await db.select().from(workshops).where(eq(workshops.id, workshopId)))[0]!.lastCardNumber,
  };
}

/** A workshop with two cards and a vote, so a refused import has something to leave alone. */
async function populated() {
  const w = await workshop();
  const cluster = await seedCard(t, w.id, facilitator, { type: 'cluster', title: 'Old' });
  const idea = await seedCard(t, w.id, facilitator, { parentId: cluster.id, title: 'Old idea' });
  await t.write(async (tx, { votes }) =>
    tx.insert(votes).values({ workshopId: w.id, cardId: idea.id, userId: facilitator.id, value: 1 }),
  );
  return w;
}

/** The columns an export writes, from a card list. */
function toCsv(list: CardOutput[]) {
  const titles = new Map(list.filter((c) => c.type === 'cluster').map((c) => [c.id, c.title]));
  return stringify(
    list.map((c) => [c.type, c.title, c.content, c.parent ? titles.get(c.parent) : '', c.color ?? '', String(c.aside)]),
    { header: true, columns: ['type', 'title', 'content', 'cluster', 'color', 'aside'] },
  );
}

const shape = (list: CardOutput[]) => {
  const titles = new Map(list.map((c) => [c.id, c.title]));
  return list.map((c) => ({
    type: c.type,
    title: c.title,
    content: c.content,
    parent: c.parent ? titles.get(c.parent) : null,
    color: c.color,
    aside: c.aside,
    position: c.position,
  }));
};

describe('PUT /cards (CSV import)', () => {
  it("replaces every card and its feedback with the file's cards", async () => {
    const w = await populated();
    const csv = [
      'Title,type,aside,cluster,color,content',
      'Problems,cluster,,,Red,Things that hurt',
      'Slow builds,idea,yes,Problems,,"Takes ""ages""\r\nevery time"',
      'Flaky tests,,0,Problems,,',
      'Faster CI,idea,true,Ideas,,',
      'Ideas,cluster,false,Ideas,green,',
      '',
      'Empty,cluster,,,,',
    ].join('\r\n');
    const res = await upload(w.id, csv);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(shape(res.body)).toEqual([
      {
        type: 'cluster',
        title: 'Problems',
        content: 'Things that hurt',
        parent: null,
        color: 'red',
        aside: false,
        position: 0,
      },
      {
        type: 'idea',
        title: 'Slow builds',
        content: 'Takes "ages"\nevery time',
        parent: 'Problems',
        color: null,
        aside: true,
        position: 0,
      },
      { type: 'idea', title: 'Flaky tests', content: '', parent: 'Problems', color: null, aside: false, position: 1 },
      { type: 'cluster', title: 'Ideas', content: '', parent: null, color: 'green', aside: false, position: 1 },
      { type: 'idea', title: 'Faster CI', content: '', parent: 'Ideas', color: null, aside: true, position: 0 },
      { type: 'cluster', title: 'Empty', content: '', parent: null, color: null, aside: false, position: 2 },
    ]);
    expect(res.body.map((c) => c.short_id)).toEqual(['3', '4', '5', '6', '7', '8']);
    expect(res.body.every((c) => c.user_id === facilitator.id)).toBe(true);
    expect(await listed(w.id)).toEqual(res.body);
    const after = await snapshot(w.id);
    expect(after.votes).toBe(0);
    expect(after.lastCardNumber).toBe(8);
    const { events } = t.tables;
    const event = (await t.db.select().from(events).where(eq(events.workshopId, w.id)).orderBy(asc(events.seq))).at(
      -1,
    )!;
    expect(event.action).toBe('importCards');
    expect(event.change).toEqual({ count: 6 });
  });

  it('creates clusters that ideas name but no row declares, and accepts a header-only file', async () => {
    const w = await workshop();
    const res = await upload(w.id, 'type,title,cluster\nidea,One,Alpha\nidea,Two,Beta\nidea,Three,Alpha\n');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.map((c) => `${c.type}:${c.title}`)).toEqual([
      'cluster:Alpha',
      'idea:One',
      'idea:Three',
      'cluster:Beta',
      'idea:Two',
    ]);
    const emptied = await upload(w.id, '\uFEFFtype,title,content,cluster,color,aside\n');
    expect(emptied.status).toBe(200);
    expect(emptied.body).toEqual([]);
    expect(await listed(w.id)).toEqual([]);
  });

  it('refuses a NUL character, which PostgreSQL cannot store, on both stores alike', async () => {
    const w = await workshop();
    const res = await upload(w.id, 'type,title\ncluster,Fine\ncluster,Not\u0000fine\n');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('line 3');
    expect(await listed(w.id)).toEqual([]);
  });

  it('also takes the CSV as a plain form field', async () => {
    const w = await workshop();
    const form = new FormData();
    form.append('file', 'type,title\ncluster,From a field\n');
    const res = await t.request<CardOutput[]>('PUT', `/v1/workshops/${w.id}/cards`, {
      token: facilitator.token,
      rawBody: form,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.map((c) => c.title)).toEqual(['From a field']);
  });

  it('round-trips an exported card list', async () => {
    const w = await workshop();
    const first = await upload(
      w.id,
      [
        'type,title,content,cluster,color,aside',
        'cluster,"Comma, cluster","Line one\nline two",,beige,false',
        'idea,"Quote ""here""",x,"Comma, cluster",,true',
        'idea,Plain,,"Comma, cluster",,false',
        'cluster,Second,,,,true',
        'idea,Under second,,Second,,false',
      ].join('\n'),
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await upload(w.id, toCsv(first.body));
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(shape(again.body)).toEqual(shape(first.body));
    expect(again.body.map((c) => Number(c.short_id))).toEqual([6, 7, 8, 9, 10]);
  });

  it('refuses a bad line with a 400 naming it, and changes nothing', async () => {
    const w = await populated();
    const before = await snapshot(w.id);
    const header = 'type,title,content,cluster,color,aside';
    const cases: Array<[string, string]> = [
      ['', 'line 1'],
      ['type,title,owner\ncluster,A,me', 'line 1'],
      ['type,cluster\ncluster,A', 'line 1'],
      ['type,title,title\ncluster,A,B', 'line 1'],
      [`${header}\ncluster,A,,,,\nidea,,,A,,`, 'line 3'],
      [`${header}\ncluster,A,,,,\nidea,x,,,,`, 'line 3'],
      [`${header}\ncluster,A,,,,\nidea,x,,A,red,`, 'line 3'],
      [`${header}\ncluster,A,,,purple-ish,`, 'line 2'],
      [`${header}\ncluster,A,,,,maybe`, 'line 2'],
      [`${header}\nnote,A,,,,`, 'line 2'],
      [`${header}\ncluster,A,,,,\ncluster,A,,,,`, 'line 3'],
      [`${header}\ncluster,A,,B,,`, 'line 2'],
      [`${header}\ncluster,A,"multi\nline\ncontent",,,\nidea,x,,A,,\nidea,,,A,,`, 'line 6'],
      [`${header}\ncluster,A,,,,\ncluster,B,,,`, 'line 3'],
      [`${header}\ncluster,A,,,,\nidea,"open,,A,,\n`, 'line 3'],
      [`${header}\ncluster,${'x'.repeat(501)},,,,`, 'line 2'],
      [`${header}\nidea,x,,${'x'.repeat(501)},,`, 'line 2'],
    ];
    for (const [csv, line] of cases) {
      const res = await upload(w.id, csv);
      expectError(res, 400, 'invalid_request');
      expect(errorOf(res).message, csv).toContain(line);
      expect(errorOf(res).details?.[0]?.path, csv).toBe(line);
    }
    const several = await upload(w.id, `${header}\nidea,a,,,,\ncluster,B,,,,\nidea,,,B,,`);
    expect(errorOf(several).details?.map((d) => d.path)).toEqual(['line 2', 'line 4']);
    expect(await snapshot(w.id)).toEqual(before);
  });

  it('answers 415 without multipart, 400 without a file, 413 above 5 MiB', async () => {
    const w = await populated();
    const before = await snapshot(w.id);
    const path = `/v1/workshops/${w.id}/cards`;
    expectError(
      await t.request('PUT', path, { token: facilitator.token, body: { file: 'type,title' } }),
      415,
      'unsupported_media_type',
    );
    await expectRawBodyRefused(
      t,
      { method: 'PUT', path: path, token: facilitator.token },
      { body: 'type,title\n', contentType: 'text/csv' },
    );
    const missing = await upload(w.id, 'type,title\n', facilitator, 'other');
    expectError(missing, 400, 'invalid_request');
    expect(errorOf(missing).details?.[0]?.path).toBe('file');
    const big = `type,title,content\n${`cluster,A,${'x'.repeat(1000)}\n`.repeat(5300)}`;
    expectError(await upload(w.id, big), 413, 'payload_too_large');
    expect(await snapshot(w.id)).toEqual(before);
  });

  it('is for facilitators of running workshops only', async () => {
    const w = await populated();
    const before = await snapshot(w.id);
    const csv = 'type,title\ncluster,New\n';
    expectError(await upload(w.id, csv, participant), 403, 'forbidden');
    expectError(await upload(w.id, csv, stranger), 404, 'not_found');
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'archived' }).where(eq(workshops.id, w.id)),
    );
    expectError(await upload(w.id, csv), 409, 'workshop_archived');
    await t.write(async (tx, { workshops }) =>
      tx.update(workshops).set({ state: 'running' }).where(eq(workshops.id, w.id)),
    );
    expect(await snapshot(w.id)).toEqual(before);
  });
});
