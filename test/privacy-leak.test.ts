import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ExportOutput } from '../src/domain/events';
import { queueDailyDigests } from '../src/modules/mail/digest';
import { digestTime } from './helpers/digest-time';
import { useServer, useSockets, useUsers } from './helpers/cast';
import { syncedDoc } from './helpers/collab';
import {
  confirmAddress,
  errorOf,
  expectError,
  seedFile,
  seedMember,
  seedWorkshopWith,
  type TestUser,
} from './helpers/factories';
import { readPdf } from './helpers/pdf';
import type { LiveClient } from './helpers/sockets';
import { until } from './helpers/wait';

/*
 * Private writing and anonymous authors (docs/api.md#private-writing-and-anonymous-authors) held
 * on every channel at once: a private, anonymous brainstorm, then a reveal.
 * A second participant records every byte the server sends them (REST answers, every Socket.IO
 * event, resumes from seq 0, the event log, participation); nothing of the first participant's
 * cards may reach them before the reveal, and their id never. The facilitator's exports and the
 * daily digest carry no author name of an anonymous card.
 */

const t = useServer();
const [fay, ana, ben] = useUsers(t, 'Fay Facilitator', 'Ana Listener', 'Benedikt Quillfeather');
const sockets = useSockets(t);

const api = async <T = any>(method: string, path: string, user: TestUser, body?: unknown): Promise<T> => {
  const res = await t.request<T>(method, path, { token: user.token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
};

/** Everything one participant hears: REST answers and socket events, as text. */
class Transcript {
  private readonly answers: string[] = [];
  private readonly clients: LiveClient[] = [];

  constructor(private readonly user: TestUser) {}

  async get(path: string): Promise<{ status: number; body: any }> {
    const res = await t.request<any>('GET', path, { token: this.user.token });
    this.answers.push(`GET ${path} ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  }

  listen(client: LiveClient): LiveClient {
    this.clients.push(client);
    return client;
  }

  /** Presence is left out: it shows who is connected, by design (docs/api.md#private-writing-and-anonymous-authors). */
  text(): string {
    const events = this.clients.flatMap((client) =>
      client.received.filter((r) => r.event !== 'presence').map((r) => `${r.event} ${JSON.stringify(r.payload)}`),
    );
    return [...this.answers, ...events].join('\n');
  }
}

/** Waits until `client` has every change up to now: the facilitator renames the workshop, and events arrive in order. */
/** A workshop of Fay's with Ana and Ben, a cluster `Board` of hers, and a step with these prefs current. */
async function onStep(prefs: Record<string, unknown>) {
  const w = await seedWorkshopWith(t, fay, [ana, ben]);
  const base = `/v1/workshops/${w.id}`;
  const step = await api('POST', `${base}/steps`, fay, { name: 'The step', prefs });
  const board = await api('POST', `${base}/cards`, fay, { type: 'cluster', title: 'Board' });
  await api('PUT', base, fay, { current_step_id: step.id });
  return { w, base, step, board };
}

async function caughtUp(client: LiveClient, workshopId: string, marker: string) {
  await api('PUT', `/v1/workshops/${workshopId}`, fay, { title: marker });
  await client.next('workshop:updated', (p) => p.workshop.title === marker, 5_000);
}

/** Every REST read a participant could make of the workshop and of one card. */
async function readEverything(ear: Transcript, workshopId: string, cardIds: string[]) {
  const w = `/v1/workshops/${workshopId}`;
  const answers: Record<string, number> = {};
  for (const path of [w, `${w}/cards`, `${w}/cards?type=idea`, `${w}/events?per_page=100`, `${w}/participation`])
    answers[path] = (await ear.get(path)).status;
  for (const id of cardIds) {
    for (const part of [
      '',
      '?attributes=sections,criteria',
      '/comments',
      '/items',
      '/votes',
      '/ratings',
      '/attachments',
    ]) {
      const path = `${w}/cards/${id}${part.startsWith('?') ? part : part}`;
      answers[path] = (await ear.get(path)).status;
    }
  }
  return answers;
}

/** A resume from the very start: every event of the log, replayed as this participant may see it now. */
async function resumeFromStart(ear: Transcript, workshopId: string) {
  const client = ear.listen(await sockets.connected(ana));
  const ack = await client.join(workshopId, 0);
  expect(ack.ok).toBe(true);
  return client;
}

/** Asks the facilitator's export of `type`, waits for it, and answers its text. */
async function exportText(workshopId: string, type: 'csv' | 'xlsx' | 'docx' | 'pdf'): Promise<string> {
  const created = await api<ExportOutput>('POST', `/v1/workshops/${workshopId}/exports`, fay, { type });
  let done: ExportOutput | undefined;
  await until(
    async () => {
      done = await api<ExportOutput>('GET', `/v1/workshops/${workshopId}/exports/${created.id}`, fay);
      return done.state !== 'pending';
    },
    `the ${type} export`,
    30_000,
  );
  expect(done!.state, done!.message ?? '').toBe('success');
  const bytes = Buffer.from(await (await fetch(done!.url!)).arrayBuffer());
  switch (type) {
    case 'csv':
      return bytes.toString('utf8');
    case 'xlsx': {
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(bytes as unknown as ArrayBuffer);
      const cells: string[] = [];
      book.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => cells.push(String(cell.text)))));
      return cells.join('\n');
    }
    case 'docx': {
      const zip = await JSZip.loadAsync(bytes);
      const parts = await Promise.all(
        Object.values(zip.files)
          .filter((f) => f.name.endsWith('.xml'))
          .map((f) => f.async('string')),
      );
      return parts.join('\n');
    }
    case 'pdf':
      return (await readPdf(bytes)).pages.map((page) => page.text).join('\n');
  }
}

describe('private writing and anonymous authors on every channel', () => {
  it('a private, anonymous brainstorm leaks nothing to another participant before the reveal, and never its author', async () => {
    const w = await seedWorkshopWith(t, fay, [ana, ben]);
    const base = `/v1/workshops/${w.id}`;
    const section = await api('POST', `${base}/sections`, fay, { title: 'Notes' });
    const criterion = await api('POST', `${base}/criteria`, fay, { title: 'Impact', scale: 3 });
    const quiet = await api('POST', `${base}/steps`, fay, {
      name: 'Write alone',
      prefs: { cards_visible: 'own', authors: 'hidden' },
    });
    const together = await api('POST', `${base}/steps`, fay, {
      name: 'Read together',
      prefs: { cards_visible: 'all' },
    });
    expect(quiet.prefs).toMatchObject({ cards_visible: 'own', authors: 'hidden' });
    expect(together.prefs).toMatchObject({ cards_visible: 'all', authors: 'shown' });
    const board = await api('POST', `${base}/cards`, fay, { type: 'cluster', title: 'Board' });
    await api('PUT', base, fay, { current_step_id: quiet.id });

    const ear = new Transcript(ana);
    const live = ear.listen(await sockets.joined(ana, w.id));
    const shown = (await ear.get(base)).body;
    expect(shown).toMatchObject({ cards_visible: 'own', authors: 'hidden' });

    // Ben writes alone and without his name; the facilitator gives his idea feedback and edits it.
    const idea = await api('POST', `${base}/cards`, ben, {
      type: 'idea',
      parent: board.id,
      title: 'BEN-SECRET idea',
      content: 'BEN-SECRET body',
    });
    expect(idea).toMatchObject({ user_id: ben.id, author_visibility: 'hidden' });
    const cluster = await api('POST', `${base}/cards`, ben, { type: 'cluster', title: 'BEN-SECRET cluster' });
    await api('POST', `${base}/cards/${idea.id}/comments`, ben, { content: 'BEN-SECRET comment' });
    await api('POST', `${base}/cards/${idea.id}/items`, ben, { content: 'BEN-SECRET item', section_id: section.id });
    const file = await seedFile(t, ben, { name: 'BEN-SECRET.png' });
    await api('POST', `${base}/cards/${idea.id}/attachments`, ben, {
      blob: { key: file.key, container: file.container },
    });
    // On the facilitator's card: its text is for everyone, its author for nobody.
    await api('POST', `${base}/cards/${board.id}/comments`, ben, { content: 'Open remark' });
    await api('POST', `${base}/cards/${idea.id}/votes`, fay, { value: 1 });
    await api('POST', `${base}/cards/${idea.id}/ratings`, fay, { value: 10, criterium_id: criterion.id });
    await api('PUT', `${base}/cards/${idea.id}`, fay, { title: 'BEN-SECRET edited' });
    await api('POST', `${base}/cards`, ana, { type: 'idea', parent: board.id, title: 'ANA idea' });
    await caughtUp(live, w.id, 'marker before');

    const statuses = await readEverything(ear, w.id, [idea.id, cluster.id, board.id]);
    for (const id of [idea.id, cluster.id]) {
      for (const [path, status] of Object.entries(statuses)) if (path.includes(id)) expect(status, path).toBe(404);
    }
    expect(statuses[`${base}/cards/${board.id}/comments`]).toBe(200);
    await resumeFromStart(ear, w.id);

    const before = ear.text();
    expect(before).not.toContain('BEN-SECRET');
    expect(before).not.toContain(ben.id);
    // What Ana may see did reach her: the open remark (without its author) and her own idea.
    expect(before).toContain('Open remark');
    expect(before).toContain('ANA idea');
    // Every change reached her, the hidden ones as a bare sequence number: no hole.
    const seqs = live.seqs(w.id);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    const bare = live.all('workshop:event', (p) => p.change === undefined).map((p) => p.action);
    expect(bare).toEqual(
      expect.arrayContaining([
        'addCard',
        'addComment',
        'addItem',
        'addAttachment',
        'addVote',
        'addRating',
        'updateCard',
      ]),
    );

    // The reveal: the next step shows every card, still without Ben's name.
    await api('PUT', base, fay, { current_step_id: together.id });
    const changed = await live.next('step:changed', (p) => p.step?.id === together.id);
    expect(changed.step.prefs.cards_visible).toBe('all');
    const cards = (await ear.get(`${base}/cards`)).body as Array<{ id: string; title: string; user_id: string | null }>;
    expect(cards.find((card) => card.id === idea.id)).toMatchObject({
      title: 'BEN-SECRET edited',
      user_id: null,
      author_visibility: 'hidden',
    });
    expect(cards.find((card) => card.id === cluster.id)).toMatchObject({ user_id: null });
    const comments = (await ear.get(`${base}/cards/${idea.id}/comments`)).body;
    expect(comments).toEqual([expect.objectContaining({ content: 'BEN-SECRET comment', user_id: null })]);
    const log = (await ear.get(`${base}/events?per_page=100`)).body;
    const added = log.find((event: any) => event.action === 'addCard' && event.change.card.id === idea.id);
    expect(added).toMatchObject({ user: null, change: { card: { user_id: null } } });
    await readEverything(ear, w.id, [idea.id, cluster.id]);
    const replay = await resumeFromStart(ear, w.id);
    expect(replay.all('card:created', (p) => p.card.id === idea.id)).toEqual([
      expect.objectContaining({ card: expect.objectContaining({ user_id: null }) }),
    ]);

    const after = ear.text();
    expect(after).toContain('BEN-SECRET edited');
    expect(after).not.toContain(ben.id);

    // The facilitator's exports and the daily digest name nobody for the anonymous writing.
    for (const type of ['csv', 'xlsx', 'docx', 'pdf'] as const) {
      const text = await exportText(w.id, type);
      expect(text, type).toContain('BEN-SECRET');
      expect(text, type).not.toContain('Quillfeather');
    }
    await queueDailyDigests(t.deps, digestTime());
    const mails = await t.rows<{ to: string; text: string; html: string }>(
      sql`SELECT "to", text, html FROM outbox WHERE subject LIKE 'What happened%'`,
    );
    const toOthers = mails.filter((mail) => mail.to !== ben.email);
    expect(toOthers.length).toBeGreaterThan(0);
    for (const mail of toOthers) {
      expect(mail.text + mail.html).not.toContain('Quillfeather');
      expect(mail.text + mail.html).not.toContain(ben.id);
    }
  });

  it('hidden_from_participants: facilitators and the author see the author, other participants never, live and over REST', async () => {
    const { w, base, board } = await onStep({ authors: 'hidden_from_participants' });
    const [fayLive, anaLive, benLive] = [
      await sockets.joined(fay, w.id),
      await sockets.joined(ana, w.id),
      await sockets.joined(ben, w.id),
    ];

    const idea = await api('POST', `${base}/cards`, ben, { type: 'idea', parent: board.id, title: 'Candid idea' });
    const byCard = (p: any) => p.card.id === idea.id;
    expect((await fayLive.next('card:created', byCard)).card.user_id).toBe(ben.id);
    expect((await benLive.next('card:created', byCard)).card.user_id).toBe(ben.id);
    expect((await anaLive.next('card:created', byCard)).card.user_id).toBeNull();
    // Each socket got the card once.
    for (const client of [fayLive, anaLive, benLive]) expect(client.all('card:created', byCard)).toHaveLength(1);

    const read = async (user: TestUser) =>
      (await api<any[]>('GET', `${base}/cards`, user)).find((card) => card.id === idea.id).user_id;
    expect(await read(fay)).toBe(ben.id);
    expect(await read(ben)).toBe(ben.id);
    expect(await read(ana)).toBeNull();
    // Read again from the shared cache, in the other order: still each their own.
    expect(await read(ana)).toBeNull();
    expect(await read(ben)).toBe(ben.id);

    // The level stays with the card when the step changes (to one naming authors).
    const named = await api('POST', `${base}/steps`, fay, { name: 'Named' });
    await api('PUT', base, fay, { current_step_id: named.id });
    expect((await api('GET', base, ana)).authors).toBe('shown');
    expect(await read(ana)).toBeNull();
    const later = await api('POST', `${base}/cards`, ben, { type: 'idea', parent: board.id, title: 'Named idea' });
    expect(later).toMatchObject({ user_id: ben.id, author_visibility: 'shown' });
    expect((await anaLive.next('card:created', (p) => p.card.id === later.id)).card.user_id).toBe(ben.id);
  });

  it('a private step keeps other participants from writing on, voting on or filing under a card they cannot see', async () => {
    const w = await seedWorkshopWith(t, fay, [ana, ben]);
    const base = `/v1/workshops/${w.id}`;
    const step = await api('POST', `${base}/steps`, fay, {
      name: 'Alone',
      prefs: { cards_visible: 'own', allow_edit: 'all', allow_delete: 'all' },
    });
    await api('PUT', base, fay, { current_step_id: step.id });
    const cluster = await api('POST', `${base}/cards`, ben, { type: 'cluster', title: 'Ben alone' });
    const other = await api('POST', `${base}/cards`, ana, { type: 'cluster', title: 'Ana alone' });
    const attempts: Array<[string, string, unknown]> = [
      ['GET', `${base}/cards/${cluster.id}`, undefined],
      ['PUT', `${base}/cards/${cluster.id}`, { title: 'Taken' }],
      ['DELETE', `${base}/cards/${cluster.id}`, undefined],
      ['POST', `${base}/cards/${cluster.id}/votes`, { value: 1 }],
      ['POST', `${base}/cards/${cluster.id}/comments`, { content: 'Hi' }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await t.request(method, path, { token: ana.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // In a merge, a card she cannot see reads as one that does not exist.
    const merge = await t.request('POST', `${base}/cards/merge`, {
      token: ana.token,
      body: { cards_id: [other.id, cluster.id] },
    });
    expect(merge.status).toBe(400);
    expect(errorOf(merge).details).toEqual([expect.objectContaining({ path: 'cards_id.1' })]);
    const filed = await t.request('POST', `${base}/cards`, {
      token: ana.token,
      body: { type: 'idea', parent: cluster.id, title: 'Mine' },
    });
    expect(filed.status).toBe(400);
    // Nothing changed: Ben's cluster is as he wrote it, and has no votes or comments.
    expect(await api('GET', `${base}/cards/${cluster.id}`, fay)).toMatchObject({
      title: 'Ben alone',
      summary: { score: 0, comments: 0 },
    });
    // Facilitators see and reach every card.
    expect((await api<any[]>('GET', `${base}/cards`, fay)).map((card) => card.id)).toEqual(
      expect.arrayContaining([cluster.id, other.id]),
    );
  });

  it("a facilitator's merge keeps privately written cards private, and the criteria's ratings leave out hidden cards", async () => {
    const { w, base, board } = await onStep({ cards_visible: 'own' });
    const criterion = await api('POST', `${base}/criteria`, fay, { title: 'Impact', scale: 3 });
    const [first, second] = [
      await api('POST', `${base}/cards`, ben, { type: 'idea', parent: board.id, title: 'BEN-ONE' }),
      await api('POST', `${base}/cards`, ben, { type: 'idea', parent: board.id, title: 'BEN-TWO' }),
    ];
    const anas = await api('POST', `${base}/cards`, ana, { type: 'idea', parent: board.id, title: 'ANA-ONE' });
    await api('POST', `${base}/cards/${first.id}/ratings`, ben, { value: 5, criterium_id: criterion.id });

    // Ana's criteria show no rating on Ben's hidden card; the facilitator's do.
    const ratingsOf = async (user: TestUser, path: string) => JSON.stringify(await api('GET', path, user));
    for (const path of [`${base}/criteria`, `${base}/criteria/${criterion.id}`]) {
      expect(await ratingsOf(ana, path), path).not.toContain(first.id);
      expect(await ratingsOf(fay, path), path).toContain(first.id);
    }

    // Grouping two participants' private ideas would show each their writing: refused, nothing changed.
    expectError(
      await t.request('POST', `${base}/cards/merge`, { token: fay.token, body: { cards_id: [first.id, anas.id] } }),
      409,
      'conflict',
    );
    expect((await api<any[]>('GET', `${base}/cards`, fay)).map((card) => card.id)).toEqual(
      expect.arrayContaining([first.id, anas.id]),
    );

    // One participant's ideas merged by the facilitator stay that participant's, private from Ana.
    const anaLive = await sockets.joined(ana, w.id);
    const merged = await api('POST', `${base}/cards/merge`, fay, { cards_id: [first.id, second.id] });
    expect(merged.user_id).toBe(ben.id);
    expect(JSON.stringify(await api('GET', `${base}/cards`, ana))).not.toContain('BEN-');
    const heard = await anaLive.next('workshop:event', (p) => p.action === 'mergeCards');
    expect(heard).toEqual({ seq: expect.any(Number), workshop_id: w.id, action: 'mergeCards', reload: true });
    expect(anaLive.all('card:created')).toEqual([]);
  });

  it("shows a participant the cards of someone made an organization admin at once, though the workshop's log did not move", async () => {
    const org = await api('POST', '/v1/organizations', fay, { name: 'Quiet org' });
    const w = await api('POST', `/v1/organizations/${org.id}/workshops`, fay, { title: 'Org workshop' });
    for (const user of [ana, ben]) await seedMember(t, w.id, user);
    const base = `/v1/workshops/${w.id}`;
    const step = await api('POST', `${base}/steps`, fay, { name: 'Alone', prefs: { cards_visible: 'own' } });
    const board = await api('POST', `${base}/cards`, fay, { type: 'cluster', title: 'Board' });
    await api('PUT', base, fay, { current_step_id: step.id });
    const idea = await api('POST', `${base}/cards`, ben, {
      type: 'idea',
      parent: board.id,
      title: 'Soon a facilitator',
    });
    const listed = async () => (await api<any[]>('GET', `${base}/cards`, ana)).map((card) => card.id);
    expect(await listed()).not.toContain(idea.id);
    // Organization admins act as facilitators, whose cards a private step shows
    // (docs/api.md#private-writing-and-anonymous-authors).
    await confirmAddress(t, ben.email, ben.token);
    await api('POST', `/v1/organizations/${org.id}/members`, fay, { email: ben.email, role: 'admin' });
    expect(await listed()).toContain(idea.id);
  });

  it('the log does not name who moved their own anonymous card', async () => {
    const { w, base, board } = await onStep({ authors: 'hidden' });
    const idea = await api('POST', `${base}/cards`, ben, { type: 'idea', parent: board.id, title: 'Moved' });
    const moves = async (user: TestUser) =>
      (await api<any[]>('GET', `${base}/events?filters=moveCards`, user)).map((event) => event.user?.id ?? null);
    // Drags on the canvas document, as a screen makes them: Ben's own card, then Fay's drag of it.
    for (const [user, x] of [
      [ben, 10],
      [fay, 30],
    ] as const) {
      const client = await syncedDoc(t, w.id, user.token);
      client.cards.set(idea.id, { ...client.cards.get(idea.id), x, y: 20 });
      await until(async () => (await moves(fay)).length === (user === ben ? 1 : 2), 'the move logged');
      client.destroy();
    }
    expect(await moves(ana)).toEqual([fay.id, null]);
    expect(await moves(fay)).toEqual([fay.id, null]);
    expect(await moves(ben)).toEqual([fay.id, ben.id]);
    // Decided when the move was logged: deleting the card later names nobody.
    await api('DELETE', `${base}/cards/${idea.id}`, ben);
    expect(await moves(ana)).toEqual([fay.id, null]);
  });
});
