import JSZip from 'jszip';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NativeDocument } from '../src/modules/exports/native-schema';
import type { StepOutput } from '../src/domain/steps';
import type { WorkshopOutput } from '../src/domain/workshops';
import { useServer, useUsers } from './helpers/cast';
import type { TestUser } from './helpers/factories';
import { readPdf } from './helpers/pdf';
import { requestsOn } from './helpers/requests';
import {
  exported as exportedBy,
  lineAfter,
  lineBefore,
  records,
  rowWith,
  workbookOf,
  zipText,
  type ExportType,
} from './helpers/exports';

/*
 * Exports and anonymous authors (docs/api.md#private-writing-and-anonymous-authors). An export is
 * read as by a facilitator who wrote none of it: a file's link needs no token and can be passed on.
 * So what was written at `authors: hidden` names nobody in any format, not even the facilitator who
 * wrote it and asks for the file; at `hidden_from_participants` the author is named.
 *
 * Where people's names legitimately appear in the files: the reports list the facilitators by name
 * (title page, document properties) and only count participants; votes and ratings name their
 * people (§6, not authorship); the native file lists the users it names. Quentin therefore only
 * writes, under the `hidden` step, and never votes or rates: his name (and id) must appear nowhere
 * in any file. Bertha writes under both steps and votes, so her name is present, just never on
 * what she wrote anonymously; Fiona facilitates, so hers is present, never on her anonymous idea.
 */

const t = useServer();
const [fiona, quentin, bertha] = useUsers(t, 'Fiona Facilitator', 'Quentin Zephyrwood', 'Bertha Quillmore');

const HIDDEN_NAME = 'Zephyrwood';

/** What was written under each step, by content, and by whom. */
const WRITTEN = {
  hidden: {
    cluster: 'Unspoken tensions',
    quentinIdea: 'Deadlines feel arbitrary',
    berthaIdea: 'Meetings run long',
    fionaIdea: 'Facilitator worry',
    comment: 'Agreed, painfully',
    item: 'Ask for a roadmap',
  },
  named: {
    cluster: 'Next moves',
    berthaIdea: 'Named suggestion',
    fionaIdea: 'Facilitator aside',
    comment: 'Happy to lead this',
  },
} as const;

const as = requestsOn(t);

interface Scene {
  workshop: WorkshopOutput;
  steps: { hidden: StepOutput; named: StepOutput; alone: StepOutput };
  cards: Map<string, string>;
}

async function buildScene(): Promise<Scene> {
  const workshop = await as<WorkshopOutput>(fiona, 'POST', '/v1/workshops', { title: 'Candid retro' });
  const base = `/v1/workshops/${workshop.id}`;
  const { access_code } = await as<{ access_code: string }>(fiona, 'GET', `${base}/access_code`);
  for (const person of [quentin, bertha]) await as(person, 'POST', '/v1/workshops/join', { access_code });
  const section = await as<{ id: string }>(fiona, 'POST', `${base}/sections`, { title: 'Follow-ups' });
  const steps = {
    hidden: await as<StepOutput>(fiona, 'POST', `${base}/steps`, {
      name: 'Write anonymously',
      prefs: { authors: 'hidden' },
    }),
    named: await as<StepOutput>(fiona, 'POST', `${base}/steps`, {
      name: 'Discuss',
      prefs: { authors: 'hidden_from_participants' },
    }),
    alone: await as<StepOutput>(fiona, 'POST', `${base}/steps`, {
      name: 'Write alone',
      prefs: { cards_visible: 'own' },
    }),
  };
  const cards = new Map<string, string>();
  const card = async (user: TestUser, title: string, parent?: string) => {
    const body = parent ? { type: 'idea', title, parent: cards.get(parent) } : { type: 'cluster', title };
    cards.set(title, (await as<{ id: string }>(user, 'POST', `${base}/cards`, body)).id);
  };
  const onCard = (title: string, what: string) => `${base}/cards/${cards.get(title)}/${what}`;

  await as(fiona, 'PUT', base, { current_step_id: steps.hidden.id });
  const hidden = WRITTEN.hidden;
  await card(quentin, hidden.cluster);
  await card(quentin, hidden.quentinIdea, hidden.cluster);
  await card(bertha, hidden.berthaIdea, hidden.cluster);
  await card(fiona, hidden.fionaIdea, hidden.cluster);
  await as(quentin, 'POST', onCard(hidden.berthaIdea, 'comments'), { content: hidden.comment });
  await as(quentin, 'POST', onCard(hidden.quentinIdea, 'items'), { content: hidden.item, section_id: section.id });

  await as(fiona, 'PUT', base, { current_step_id: steps.named.id });
  const named = WRITTEN.named;
  await card(fiona, named.cluster);
  await card(bertha, named.berthaIdea, named.cluster);
  await card(fiona, named.fionaIdea, named.cluster);
  await as(bertha, 'POST', onCard(named.berthaIdea, 'comments'), { content: named.comment });
  // A vote names its voter whatever the card's authors: Bertha's name is on Quentin's idea here.
  await as(bertha, 'POST', onCard(hidden.quentinIdea, 'votes'), { value: 1 });
  return { workshop, steps, cards };
}

/** Fiona's export of the workshop. */
const exported = (workshopId: string, type: ExportType) => exportedBy(t, fiona, workshopId, type);

const INSTANT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/;

describe('exports and anonymous authors', () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await buildScene();
  });

  it('CSV: the anonymous writings are there, and the hidden author nowhere', async () => {
    const text = (await exported(scene.workshop.id, 'csv')).data.toString('utf8');
    for (const title of [WRITTEN.hidden.quentinIdea, WRITTEN.hidden.cluster, WRITTEN.named.berthaIdea])
      expect(text).toContain(title);
    expect(text).not.toContain(HIDDEN_NAME);
  });

  it('xlsx: no author cell for what was written at hidden, the author at hidden_from_participants; votes keep their voter', async () => {
    const { data } = await exported(scene.workshop.id, 'xlsx');
    expect(await zipText(data)).not.toContain(HIDDEN_NAME);
    const workbook = await workbookOf(data);

    const cards = records(workbook, 'Cards');
    const { hidden, named } = WRITTEN;
    for (const title of [hidden.cluster, hidden.quentinIdea, hidden.berthaIdea, hidden.fionaIdea]) {
      expect(rowWith(cards, 'Title', title)['Author'] ?? null, title).toBeNull();
    }
    expect(rowWith(cards, 'Title', named.berthaIdea)['Author']).toBe('Bertha Quillmore');
    expect(rowWith(cards, 'Title', named.fionaIdea)['Author']).toBe('Fiona Facilitator');

    const comments = records(workbook, 'Comments');
    expect(rowWith(comments, 'Content', hidden.comment)['User'] ?? null).toBeNull();
    expect(rowWith(comments, 'Content', named.comment)['User']).toBe('Bertha Quillmore');
    expect(rowWith(records(workbook, 'Items'), 'Content', hidden.item)['User'] ?? null).toBeNull();
    expect(rowWith(records(workbook, 'Votes'), 'Card title', hidden.quentinIdea)['User']).toBe('Bertha Quillmore');
  });

  it('PDF: no "by" for what was written at hidden and no name on its comment or item, "by" the author at hidden_from_participants', async () => {
    const pdf = await readPdf((await exported(scene.workshop.id, 'pdf')).data);
    expect(pdf.pages.map((page) => page.compact).join('')).not.toContain(HIDDEN_NAME);
    const { hidden, named } = WRITTEN;
    for (const title of [hidden.quentinIdea, hidden.berthaIdea, hidden.fionaIdea]) {
      const facts = lineAfter(pdf, title);
      expect(facts, title).toMatch(/^Score /);
      expect(facts, title).not.toMatch(/\bby\b/);
    }
    expect(lineAfter(pdf, named.berthaIdea)).toMatch(/· by Bertha Quillmore$/);
    expect(lineAfter(pdf, named.fionaIdea)).toMatch(/· by Fiona Facilitator$/);
    // A comment's attribution is its time alone, with no name or comma before it.
    expect(lineBefore(pdf, hidden.comment)).toMatch(INSTANT);
    expect(lineBefore(pdf, named.comment)).toMatch(/^Bertha Quillmore, \d{4}-/);
    const itemNote = lineAfter(pdf, hidden.item);
    expect(itemNote).toMatch(new RegExp(`^On #\\d+ ${hidden.quentinIdea} · \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC$`));
  });

  it('Word: the hidden author nowhere; the author at hidden_from_participants on their comment', async () => {
    const { data } = await exported(scene.workshop.id, 'docx');
    const text = await zipText(data);
    expect(text).not.toContain(HIDDEN_NAME);
    expect(text).toContain(WRITTEN.hidden.comment);
    expect(text).toContain(WRITTEN.hidden.item);
    expect(text).toMatch(/Bertha Quillmore, \d{4}-/);
    // The anonymous comment's attribution is its time alone, not a name and a dangling comma.
    const document = await (await JSZip.loadAsync(data)).file('word/document.xml')!.async('string');
    const paragraphs = [...document.matchAll(/<w:p[ >][\s\S]*?<\/w:p>/g)].map((match) =>
      match[0].replace(/<[^>]+>/g, ''),
    );
    const comment = paragraphs.indexOf(WRITTEN.hidden.comment);
    expect(comment).toBeGreaterThan(0);
    expect(paragraphs[comment - 1]).toMatch(INSTANT);
  });

  it('native: author_visibility on cards, comments and items, no author id where it is hidden, no user listed for it', async () => {
    const { data } = await exported(scene.workshop.id, 'native');
    const raw = data.toString('utf8');
    expect(raw).not.toContain(HIDDEN_NAME);
    expect(raw).not.toContain(quentin.id);
    const doc = JSON.parse(raw) as NativeDocument;
    expect(doc.users.map((user) => user.name).sort()).toEqual(['Bertha Quillmore', 'Fiona Facilitator']);

    const card = (title: string) => doc.cards.find((c) => c.title === title)!;
    const { hidden, named } = WRITTEN;
    for (const title of [hidden.cluster, hidden.quentinIdea, hidden.berthaIdea, hidden.fionaIdea]) {
      expect(card(title), title).toMatchObject({ user_id: null, author_visibility: 'hidden' });
    }
    expect(card(named.berthaIdea)).toMatchObject({ user_id: bertha.id, author_visibility: 'hidden_from_participants' });
    expect(card(named.cluster)).toMatchObject({ user_id: fiona.id, author_visibility: 'hidden_from_participants' });
    expect(doc.comments.find((c) => c.content === hidden.comment)).toMatchObject({
      user_id: null,
      author_visibility: 'hidden',
    });
    expect(doc.comments.find((c) => c.content === named.comment)).toMatchObject({
      user_id: bertha.id,
      author_visibility: 'hidden_from_participants',
    });
    expect(doc.items.find((i) => i.content === hidden.item)).toMatchObject({
      user_id: null,
      author_visibility: 'hidden',
    });
    expect(doc.votes).toEqual([expect.objectContaining({ card_id: card(hidden.quentinIdea).id, user_id: bertha.id })]);
    const prefsOf = (name: string) => doc.steps.find((step) => step.name === name)!.prefs;
    expect(prefsOf('Write anonymously')).toMatchObject({ authors: 'hidden', cards_visible: 'all' });
    expect(prefsOf('Discuss')).toMatchObject({ authors: 'hidden_from_participants' });
    expect(prefsOf('Write alone')).toMatchObject({ cards_visible: 'own', authors: 'shown' });
  });

  /** Cards, comments and items of a workshop as stored: author and level by title or content. */
  async function stored(workshopId: string) {
    const { cards, comments, items } = t.tables;
    const rows = [
      ...(await t.db
        .select({ text: cards.title, userId: cards.userId, level: cards.authorVisibility })
        .from(cards)
        .where(eq(cards.workshopId, workshopId))),
      ...(await t.db
        .select({ text: comments.content, userId: comments.userId, level: comments.authorVisibility })
        .from(comments)
        .where(eq(comments.workshopId, workshopId))),
      ...(await t.db
        .select({ text: items.content, userId: items.userId, level: items.authorVisibility })
        .from(items)
        .where(eq(items.workshopId, workshopId))),
    ];
    return new Map(rows.map((row) => [row.text, { userId: row.userId, level: row.level }]));
  }

  const stepPrefs = async (user: TestUser, workshopId: string) =>
    new Map(
      (await as<StepOutput[]>(user, 'GET', `/v1/workshops/${workshopId}/steps`)).map((step) => [step.name, step.prefs]),
    );

  it("a native export imported again keeps author_visibility and the steps' prefs; the hidden authors become the importer", async () => {
    const { url } = await exported(scene.workshop.id, 'native');
    const created = await as<WorkshopOutput>(fiona, 'POST', '/v1/workshops', { url });
    const rows = await stored(created.id);
    const { hidden, named } = WRITTEN;
    for (const text of Object.values(hidden))
      expect(rows.get(text), text).toEqual({ userId: fiona.id, level: 'hidden' });
    expect(rows.get(named.berthaIdea)).toEqual({ userId: bertha.id, level: 'hidden_from_participants' });
    expect(rows.get(named.comment)).toEqual({ userId: bertha.id, level: 'hidden_from_participants' });
    expect([...rows.values()].some((row) => row.userId === quentin.id)).toBe(false);
    expect(await stepPrefs(fiona, created.id)).toEqual(await stepPrefs(fiona, scene.workshop.id));
  });

  it('a native file written before author_visibility imports everything as shown', async () => {
    const doc = JSON.parse((await exported(scene.workshop.id, 'native')).data.toString('utf8')) as NativeDocument;
    const older = {
      ...doc,
      cards: doc.cards.map(({ author_visibility: _level, ...card }) => ({
        ...card,
        user_id: card.user_id ?? fiona.id,
      })),
      items: doc.items.map(({ author_visibility: _level, ...item }) => ({
        ...item,
        user_id: item.user_id ?? fiona.id,
      })),
      comments: doc.comments.map(({ author_visibility: _level, ...comment }) => ({
        ...comment,
        user_id: comment.user_id ?? fiona.id,
      })),
    };
    expect(JSON.stringify(older)).not.toContain('author_visibility');
    const { saveFile } = await import('../src/modules/uploads/storage');
    const { publicFileUrl } = await import('../src/modules/uploads/file-links');
    const file = await saveFile(t.deps, {
      userId: fiona.id,
      name: 'older.json',
      mimetype: 'application/json',
      data: Buffer.from(JSON.stringify(older)),
    });
    const created = await as<WorkshopOutput>(fiona, 'POST', '/v1/workshops', {
      url: publicFileUrl(t.deps.config, file),
    });
    const levels = new Set([...(await stored(created.id)).values()].map((row) => row.level));
    expect([...levels]).toEqual(['shown']);
  });

  it("a copy keeps the steps' prefs and the levels; a participant's copy holds only what they could read", async () => {
    const { hidden, named } = WRITTEN;
    const source = await stored(scene.workshop.id);
    const byFiona = await as<WorkshopOutput>(fiona, 'POST', '/v1/workshops', { workshop_id: scene.workshop.id });
    expect(await stepPrefs(fiona, byFiona.id)).toEqual(await stepPrefs(fiona, scene.workshop.id));
    const copied = await stored(byFiona.id);
    for (const title of scene.cards.keys()) expect(copied.get(title), title).toEqual(source.get(title));

    // Bertha facilitates her copy: whose authors she could not see stay hidden from her there.
    const byBertha = await stored(
      (await as<WorkshopOutput>(bertha, 'POST', '/v1/workshops', { workshop_id: scene.workshop.id })).id,
    );
    expect(byBertha.get(named.fionaIdea)?.level).toBe('hidden');
    expect(byBertha.get(named.cluster)?.level).toBe('hidden');
    expect(byBertha.get(named.berthaIdea)?.level).toBe('hidden_from_participants');
    expect(byBertha.get(hidden.quentinIdea)?.level).toBe('hidden');

    // While a step keeps her to her own cards and the facilitators', the copy holds only those,
    // and no idea without its cluster.
    await as(fiona, 'PUT', `/v1/workshops/${scene.workshop.id}`, { current_step_id: scene.steps.alone.id });
    const aloneId = (await as<WorkshopOutput>(bertha, 'POST', '/v1/workshops', { workshop_id: scene.workshop.id })).id;
    const alone = await stored(aloneId);
    expect([...alone.keys()].sort()).toEqual([named.cluster, named.berthaIdea, named.fionaIdea].sort());
    // The cards left out leave no gaps: each stack is numbered 0..n-1 (docs/api.md#cards).
    const { cards } = t.tables;
    const placed = await t.db
      .select({ parentId: cards.parentId, position: cards.position })
      .from(cards)
      .where(eq(cards.workshopId, aloneId));
    const stacks = new Map<string | null, number[]>();
    for (const { parentId, position } of placed) stacks.set(parentId, [...(stacks.get(parentId) ?? []), position]);
    for (const positions of stacks.values())
      expect(positions.sort((a, b) => a - b)).toEqual(positions.map((_, at) => at));
  });
});
