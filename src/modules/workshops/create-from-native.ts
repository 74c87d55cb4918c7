import { inArray } from 'drizzle-orm';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { Tx } from '../../db/client';
import { newId, nowIso } from '../../db/columns';
import { canvases, cards, comments, criteria, items, ratings, sections, steps, users, votes, zones } from '../../db/schema/index';
import { AppError, invalid } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { fetchPublic, PublicFetchError } from '../../lib/public-fetch';
import { DEFAULT_PREFS } from '../access/rules';
import { SCALES } from '../criteria/schemas';
import { write } from '../events/recorder';
import { NATIVE_MAX_BYTES, NativeDocument } from '../exports/native-schema';
import { mergePrefs } from '../steps/prefs';
import { checkSignature, EXPORTS_CONTAINER, fileRefFromUrl, findFile, readFile } from '../uploads/storage';
import { announceCreated, insertAll } from './create-from';
import { insertWorkshop } from './repo';
import type { WorkshopOutput } from './schemas';
import { DEFAULT_VIEW, mergeView, type View } from './view';

/*
 * Creating a workshop from a native file at a URL (CONTRACT §7): fetched under the SSRF rules of
 * `lib/public-fetch.ts`, or read straight from storage when it is a signed link of this service;
 * checked whole (shape, then every reference) before anything is written; then rebuilt in one
 * transaction with new ids, as the caller's personal workshop. Authors are kept when their
 * account exists here, and become the caller otherwise; members are not carried over.
 */

/** A bad file: 400 on `url`, naming what is wrong. */
const badFile = (message: string) => invalid('url', message);

/**
 * Imports from URLs, one instance's worth: each user may start a few a minute (429 beyond), and
 * they are rebuilt one at a time, so a burst of large files cannot stack their writes.
 */
export class NativeImports {
  private readonly perUser: RateLimiterMemory;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly perMinute: number) {
    this.perUser = new RateLimiterMemory({ keyPrefix: 'native-imports', points: perMinute, duration: 60 });
  }

  async create(deps: AppDeps, user: UserRow, url: string, title: string | undefined): Promise<WorkshopOutput> {
    try {
      await this.perUser.consume(user.id);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw new AppError('rate_limited', `At most ${this.perMinute} imports a minute; try again in ${seconds} s.`, { headers: { 'Retry-After': String(seconds) } });
    }
    const { bytes, fromThisService } = await readNativeFile(deps, url);
    const document = parseNative(bytes);
    const run = this.queue.then(() => importNative(deps, user, document, title, { keepAuthors: fromThisService }));
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * The file's bytes, and whether this service wrote them (an export's signed link): only then are
 * the authors it names kept, since anyone could write a file naming any account.
 */
async function readNativeFile(deps: AppDeps, url: string): Promise<{ bytes: Buffer; fromThisService: boolean }> {
  const own = fileRefFromUrl(deps.config, url);
  if (own) {
    // A signed link of this service: read from storage, without a network hop.
    const query = new URL(url).searchParams;
    const check = checkSignature(deps.config, own, { mode: '', expires: query.get('expires') ?? undefined, signature: query.get('signature') ?? undefined });
    if (!check.ok) throw badFile(check.reason);
    const file = findFile(deps.database.db, own);
    if (!file) throw badFile('No file has this link.');
    if (file.size > NATIVE_MAX_BYTES) throw badFile(`The file is larger than ${NATIVE_MAX_BYTES} bytes.`);
    try {
      return { bytes: await readFile(deps, file), fromThisService: file.container === EXPORTS_CONTAINER };
    } catch {
      // Deleted between the lookup and the read (an export removed meanwhile).
      throw badFile('No file has this link.');
    }
  }
  try {
    const bytes = await fetchPublic(url, { allowHosts: deps.config.importAllowHosts, maxBytes: NATIVE_MAX_BYTES, timeoutMs: deps.config.importTimeoutMs });
    return { bytes, fromThisService: false };
  } catch (err) {
    if (err instanceof PublicFetchError) throw badFile(err.message);
    throw err;
  }
}

export function parseNative(bytes: Buffer): NativeDocument {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw badFile('The file is not JSON.');
  }
  const parsed = v.safeParse(NativeDocument, json);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = v.getDotPath(issue);
    throw badFile(`The file is not a native workshop: ${where ? `${where}: ` : ''}${issue.message}`);
  }
  const broken = brokenReference(parsed.output);
  if (broken) throw badFile(`The file's references are broken: ${broken}`);
  return parsed.output;
}

/** The first reference that points at nothing (or at the wrong kind of thing), described; null when all hold. */
export function brokenReference(doc: NativeDocument): string | null {
  const duplicate = (what: string, ids: string[]) => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) return `two ${what} have the id "${id}".`;
      seen.add(id);
    }
    return null;
  };
  const duplicates =
    duplicate('steps', doc.steps.map((s) => s.id)) ??
    duplicate('criteria', doc.criteria.map((c) => c.id)) ??
    duplicate('sections', doc.sections.map((s) => s.id)) ??
    duplicate('cards', doc.cards.map((c) => c.id)) ??
    duplicate('cards', doc.cards.map((c) => String(c.short_id))) ??
    duplicate('zones', doc.canvas?.zones.map((z) => z.id) ?? []);
  if (duplicates) return duplicates;

  const cardTypes = new Map(doc.cards.map((c) => [c.id, c.type]));
  const criterionScales = new Map(doc.criteria.map((c) => [c.id, c.scale]));
  const sectionIds = new Set(doc.sections.map((s) => s.id));
  const stepIds = new Set(doc.steps.map((s) => s.id));
  for (const [index, card] of doc.cards.entries()) {
    if (card.type === 'cluster' && card.parent_id !== null) return `cards[${index}] is a cluster with a parent.`;
    if (card.type === 'idea' && (card.parent_id === null || cardTypes.get(card.parent_id) !== 'cluster')) {
      return `cards[${index}].parent_id does not name a cluster of the file.`;
    }
    if (card.type === 'idea' && card.color !== null) return `cards[${index}] is an idea with a color.`;
  }
  const onCard = (what: string, list: ReadonlyArray<{ card_id: string }>) => {
    const index = list.findIndex((row) => !cardTypes.has(row.card_id));
    return index < 0 ? null : `${what}[${index}].card_id does not name a card of the file.`;
  };
  const cardless = onCard('votes', doc.votes) ?? onCard('ratings', doc.ratings) ?? onCard('items', doc.items) ?? onCard('comments', doc.comments);
  if (cardless) return cardless;
  for (const [index, rating] of doc.ratings.entries()) {
    const scale = criterionScales.get(rating.criterium_id);
    if (scale === undefined) return `ratings[${index}].criterium_id does not name a criterion of the file.`;
    if (!SCALES[scale]?.includes(rating.value)) return `ratings[${index}].value is not on its criterion's scale.`;
  }
  const sectionless = doc.items.findIndex((item) => !sectionIds.has(item.section_id));
  if (sectionless >= 0) return `items[${sectionless}].section_id does not name a section of the file.`;
  if (doc.workshop.current_step_id !== null && !stepIds.has(doc.workshop.current_step_id)) return 'workshop.current_step_id does not name a step of the file.';
  for (const [index, zone] of (doc.canvas?.zones ?? []).entries()) {
    if (zone.cluster_id !== null && cardTypes.get(zone.cluster_id) !== 'cluster') return `canvas.zones[${index}].cluster_id does not name a cluster of the file.`;
  }
  const viewProblem = (where: string, view: NativeDocument['workshop']['view']) => {
    if (view.card && !cardTypes.has(view.card)) return `${where}.card does not name a card of the file.`;
    if (view.sort_criterium_id && !criterionScales.has(view.sort_criterium_id)) return `${where}.sort_criterium_id does not name a criterion of the file.`;
    if (view.sort === 'criterium_average' && !view.sort_criterium_id) return `${where} sorts by criterium_average without a sort_criterium_id.`;
    const stray = (view.show_cluster_ids ?? []).find((id) => cardTypes.get(id) !== 'cluster');
    if (stray !== undefined) return `${where}.show_cluster_ids names "${stray}", which is not a cluster of the file.`;
    return null;
  };
  return viewProblem('workshop.view', doc.workshop.view) ?? doc.steps.map((step, i) => viewProblem(`steps[${i}].view`, step.view)).find((p) => p !== null) ?? null;
}

/** Rebuilds the document as a new workshop of `user`, with new ids everywhere. */
export function importNative(deps: AppDeps, user: UserRow, doc: NativeDocument, title: string | undefined, options: { keepAuthors: boolean }): WorkshopOutput {
  return write(deps, (tx, changes) => {
    // New ids per kind of row: a file may reuse one id for, say, a step and a card.
    const ids = new Map<string, string>();
    const freshFor = (kind: string) => (id: string) => {
      let mapped = ids.get(`${kind}\n${id}`);
      if (!mapped) ids.set(`${kind}\n${id}`, (mapped = newId()));
      return mapped;
    };
    const fresh = { step: freshFor('step'), criterion: freshFor('criterion'), section: freshFor('section'), card: freshFor('card'), zone: freshFor('zone') };
    const authors = options.keepAuthors ? knownAuthors(tx, doc, user.id) : () => user.id;
    const now = nowIso();
    const remapView = (view: NativeDocument['workshop']['view']): View => {
      const full = mergeView(DEFAULT_VIEW, view);
      return {
        ...full,
        card: full.card ? fresh.card(full.card) : null,
        sort_criterium_id: full.sort_criterium_id ? fresh.criterion(full.sort_criterium_id) : null,
        show_cluster_ids: full.show_cluster_ids.map(fresh.card),
      };
    };

    const source = doc.workshop;
    const workshop = insertWorkshop(tx, {
      owner: { type: 'user', id: user.id },
      creatorId: user.id,
      title: title ?? source.title,
      description: source.description,
      dailyMail: source.daily_mail,
      changeStepNotifications: source.change_step_notifications,
      forceSync: source.force_sync,
      view: remapView(source.view),
      extra: {
        votePositive: source.vote_limit.positive,
        voteNegative: source.vote_limit.negative,
        voteMaxPositive: Math.max(1, source.vote_limit.max_positive),
        voteMaxNegative: Math.max(1, source.vote_limit.max_negative),
        lastCardNumber: Math.max(source.last_card_number, ...doc.cards.map((c) => c.short_id), 0),
        currentStepId: source.current_step_id ? fresh.step(source.current_step_id) : null,
      },
    });
    const workshopId = workshop.id;
    const base = { workshopId, createdAt: now, updatedAt: now };

    insertAll(
      tx,
      steps,
      doc.steps.map((step, position) => ({
        ...base,
        id: fresh.step(step.id),
        position,
        name: step.name,
        instructions: step.instructions,
        prefs: mergePrefs(DEFAULT_PREFS, step.prefs),
        view: remapView(step.view),
      })),
    );
    insertAll(tx, criteria, doc.criteria.map((c, position) => ({ ...base, id: fresh.criterion(c.id), title: c.title, scale: c.scale, position })));
    insertAll(tx, sections, doc.sections.map((s, position) => ({ ...base, id: fresh.section(s.id), title: s.title, position })));

    // Positions among siblings are kept in their order and made 0..n-1 whatever the file says.
    const stacks = new Map<string | null, NativeDocument['cards']>();
    for (const card of doc.cards) stacks.set(card.parent_id, [...(stacks.get(card.parent_id) ?? []), card]);
    const positions = new Map<string, number>();
    for (const stack of stacks.values()) {
      [...stack].sort((a, b) => a.position - b.position || a.short_id - b.short_id).forEach((card, position) => positions.set(card.id, position));
    }
    insertAll(
      tx,
      cards,
      doc.cards.map((card) => ({
        workshopId,
        id: fresh.card(card.id),
        number: card.short_id,
        type: card.type,
        title: card.title,
        content: card.content,
        color: card.color,
        aside: card.aside,
        parentId: card.parent_id ? fresh.card(card.parent_id) : null,
        position: positions.get(card.id)!,
        x: card.x,
        y: card.y,
        userId: authors(card.user_id),
        createdAt: card.created_at,
        updatedAt: now,
      })),
    );
    insertAll(tx, votes, doc.votes.map((vote) => ({ workshopId, id: newId(), cardId: fresh.card(vote.card_id), userId: authors(vote.user_id), value: vote.value, createdAt: vote.created_at, updatedAt: now })));
    // One rating per user, card and criterion: when authors fold into the caller, the latest stays.
    const latestRatings = new Map<string, NativeDocument['ratings'][number] & { userId: string }>();
    for (const rating of doc.ratings) {
      const userId = authors(rating.user_id);
      const key = `${rating.card_id}\n${rating.criterium_id}\n${userId}`;
      const kept = latestRatings.get(key);
      if (!kept || kept.created_at <= rating.created_at) latestRatings.set(key, { ...rating, userId });
    }
    insertAll(
      tx,
      ratings,
      [...latestRatings.values()].map((rating) => ({
        workshopId,
        id: newId(),
        cardId: fresh.card(rating.card_id),
        criteriumId: fresh.criterion(rating.criterium_id),
        userId: rating.userId,
        value: rating.value,
        createdAt: rating.created_at,
        updatedAt: now,
      })),
    );
    insertAll(
      tx,
      items,
      doc.items.map((item) => ({
        workshopId,
        id: newId(),
        cardId: fresh.card(item.card_id),
        sectionId: fresh.section(item.section_id),
        userId: authors(item.user_id),
        content: item.content,
        createdAt: item.created_at,
        updatedAt: now,
      })),
    );
    insertAll(
      tx,
      comments,
      doc.comments.map((comment) => ({ workshopId, id: newId(), cardId: fresh.card(comment.card_id), userId: authors(comment.user_id), content: comment.content, createdAt: comment.created_at })),
    );
    if (doc.canvas) {
      const canvas = tx
        .insert(canvases)
        .values({
          ...base,
          name: doc.canvas.name,
          backgroundId: doc.canvas.background_id,
          backgroundCols: doc.canvas.background.cols,
          backgroundRows: doc.canvas.background.rows,
          image: doc.canvas.image,
        })
        .returning()
        .get();
      // The document is built from these rows (and the cards' x/y) when it first loads.
      insertAll(
        tx,
        zones,
        doc.canvas.zones.map((zone, position) => ({
          ...base,
          id: fresh.zone(zone.id),
          canvasId: canvas.id,
          name: zone.name,
          x: zone.x,
          y: zone.y,
          rows: zone.rows,
          cols: zone.cols,
          clusterId: zone.cluster_id ? fresh.card(zone.cluster_id) : null,
          position,
        })),
      );
    }
    return announceCreated(deps, changes, workshopId, user.id);
  });
}

/** Maps a file's user ids to accounts of this service: the same account when it exists, the caller otherwise. */
function knownAuthors(tx: Tx, doc: NativeDocument, callerId: string): (userId: string) => string {
  const named = new Set<string>();
  for (const list of [doc.cards, doc.votes, doc.ratings, doc.items, doc.comments]) for (const row of list) named.add(row.user_id);
  const existing = new Set<string>();
  const all = [...named];
  for (let start = 0; start < all.length; start += 500) {
    for (const row of tx.select({ id: users.id }).from(users).where(inArray(users.id, all.slice(start, start + 500))).all()) existing.add(row.id);
  }
  return (userId) => (existing.has(userId) ? userId : callerId);
}
