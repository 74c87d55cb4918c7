import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { newId } from '../../db/columns';
import { invalid, notFound } from '../../http/errors';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { authorize } from '../access/rules';
import type { Caller, WorkshopAccess } from '../../domain/permissions';
import { loadAccess } from '../access/load';
import {
  authorFor,
  authorVisibilityNow,
  readerWhoWroteNothing,
  seesCard,
  seesCardBy,
  visibleCardAuthors,
  writesPrivately,
} from '../access/visibility';
import { cardCriteria, cardSections } from './detail';
import { bodyCache } from '../../http/body-cache';
import {
  deleteCardRow,
  deleteIdeasOf,
  findCard,
  findCluster,
  ideaIdsOf,
  insertCard,
  listCardRows,
  nextCardNumber,
  requireRoomForCards,
  updateCardRow,
} from './repo';
import {
  toCard,
  UPDATABLE_FIELDS,
  type CardAttribute,
  type CardDetailOutput,
  type CardRow,
  type CreateCardInput,
  type ListCardsQuery,
  type UpdateCardInput,
} from './schemas';
import type { CardOutput } from '../../domain/cards';
import { StackPlan } from './placements';
import { cardSummaries, scoreVoter } from './summaries';
import { relinkZones } from '../canvas/zones';
import { unhookViewReferences } from '../workshops/view-references';
import { msg } from '../../i18n/messages';

/** Who is asking about which workshop. */
export interface WorkshopRef {
  workshopId: string;
  /** Who is asking: their id, and what single sign-on keeps their session out of. */
  caller: Caller;
}

/** One card as the caller sees it (score per display prefs, author per its visibility). */
export async function cardFor(db: Db, access: WorkshopAccess, row: CardRow): Promise<CardOutput> {
  return authorFor(
    access,
    toCard(row, (await cardSummaries(db, row.workshopId, scoreVoter(access), [row.id]))(row.id)),
  );
}

/** The card, if the caller may see it now (404 otherwise, as for a card that does not exist). */
async function findVisibleCard(db: Db, access: WorkshopAccess, cardId: string): Promise<CardRow> {
  const row = await findCard(db, access.workshop.id, cardId);
  if (!(await seesCard(db, access, row.userId))) throw notFound('card');
  return row;
}

/**
 * One card for the event log and broadcasts: the full score, whoever acted. Readers whose display
 * prefs hide others' votes get it redacted on the way out (events/log.ts).
 */
export async function cardForEvent(db: Db, row: CardRow): Promise<CardOutput> {
  return toCard(row, (await cardSummaries(db, row.workshopId, null, [row.id]))(row.id));
}

/**
 * Cards in list order as the caller sees them: the cards a private step lets them see, each with
 * its summary per display prefs and its author per its visibility.
 */
export async function cardsFor(db: Db, access: WorkshopAccess, filters: ListCardsQuery = {}): Promise<CardOutput[]> {
  return (await visibleCards(db, access, filters)).map((card) => authorFor(access, card));
}

/** `cardsFor` with every author still named: for a caller who hides them as their reader may see them. */
async function visibleCards(db: Db, access: WorkshopAccess, filters: ListCardsQuery): Promise<CardOutput[]> {
  const workshopId = access.workshop.id;
  const voterId = scoreVoter(access);
  const authors = await visibleCardAuthors(db, access);
  const rows = (await listCardRows(db, workshopId, filters)).filter((row) => seesCardBy(authors, row.userId));
  const filtered =
    filters.type !== undefined || filters.parent !== undefined || filters.aside !== undefined || authors !== 'all';
  const summaryOf = await cardSummaries(db, workshopId, voterId, filtered ? rows.map((r) => r.id) : undefined);
  return rows.map((row) => toCard(row, summaryOf(row.id)));
}

/**
 * GET …/cards as JSON bytes, served from the body cache while the workshop has not changed
 * (`http/body-cache.ts`); a reader whose display prefs hide others' votes has lists of their own.
 * A private step's list also depends on who facilitates (organization admins among them), which
 * the identity epoch follows, as the request's authentication read it.
 */
export async function listCardsBody(
  deps: AppDeps,
  ref: WorkshopRef,
  filters: ListCardsQuery,
  identityEpoch: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const { db } = deps.database;
  const access = await loadAccess(db, ref.workshopId, ref.caller);
  // Hidden votes or a private step give each participant a list of their own; otherwise one list
  // per role is shared, made for a reader who wrote nothing, unless the caller wrote some of the
  // anonymous cards in it (they see their own name on them).
  const privately = writesPrivately(access, access.prefs);
  const personal = scoreVoter(access) ?? (privately ? access.userId : undefined);
  const key = [
    'cards',
    access.workshop.id,
    access.role,
    personal ?? '',
    filters.type ?? '',
    filters.parent ?? '',
    filters.aside ?? '',
  ].join('\u0000');
  const version = privately ? `${access.workshop.lastEventSeq}:${identityEpoch}` : String(access.workshop.lastEventSeq);
  if (personal !== undefined) return bodyCache(db).body(key, version, () => cardsFor(db, access, filters));
  return bodyCache(db).bodyFor(key, version, access.userId, async (shared) => {
    const cards = await visibleCards(db, access, filters);
    if (!shared) return { value: cards.map((card) => authorFor(access, card)), hiddenAuthors: new Set<string>() };
    const generic = readerWhoWroteNothing(access.role);
    const hiddenAuthors = new Set<string>();
    const value = cards.map((card) => {
      const seen = authorFor(generic, card);
      if (seen.user_id === null && card.user_id !== null) hiddenAuthors.add(card.user_id);
      return seen;
    });
    return { value, hiddenAuthors };
  });
}

export async function getCard(
  deps: AppDeps,
  ref: WorkshopRef,
  cardId: string,
  attributes: ReadonlySet<CardAttribute> = new Set(),
): Promise<CardDetailOutput> {
  const { db } = deps.database;
  const access = await loadAccess(db, ref.workshopId, ref.caller);
  const row = await findVisibleCard(db, access, cardId);
  const card: CardDetailOutput = await cardFor(db, access, row);
  if (attributes.has('sections')) card.sections = await cardSections(db, ref.workshopId, row.id, access);
  if (attributes.has('criteria')) card.criteria = await cardCriteria(db, access, row.id);
  return card;
}

/** The parent an idea names: a cluster of the same workshop the caller may see (400 on `parent` otherwise). */
async function requireCluster(db: Db, access: WorkshopAccess, parentId: string): Promise<CardRow> {
  const cluster = await findCluster(db, access.workshop.id, parentId);
  if (!cluster || !(await seesCard(db, access, cluster.userId)))
    throw invalid('parent', msg('error.cards.parent_not_cluster'));
  return cluster;
}

export function createCard(deps: AppDeps, ref: WorkshopRef, input: CreateCardInput): Promise<CardOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, ref.workshopId, ref.caller);
    authorize(access, input.type === 'cluster' ? 'add_cluster' : 'add_idea');
    const parentId = input.type === 'idea' ? (await requireCluster(tx, access, input.parent!)).id : null;
    await requireRoomForCards(tx, ref.workshopId, 1);
    const id = newId();
    const plan = new StackPlan(tx, ref.workshopId);
    const position = await plan.insert(parentId, id, input.position);
    const row = await insertCard(tx, {
      id,
      workshopId: ref.workshopId,
      number: await nextCardNumber(tx, ref.workshopId),
      type: input.type,
      title: input.title,
      content: input.content,
      color: input.type === 'cluster' ? (input.color ?? null) : null,
      aside: input.aside,
      parentId,
      position,
      userId: ref.caller.id,
      authorVisibility: authorVisibilityNow(access),
    });
    await plan.commit(deps, tx, changes);
    const card = toCard(row);
    changes.record({ workshopId: ref.workshopId, action: 'addCard', userId: ref.caller.id, change: { card } });
    return card;
  });
}

export function updateCard(
  deps: AppDeps,
  ref: WorkshopRef,
  cardId: string,
  input: UpdateCardInput,
): Promise<CardOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, ref.workshopId, ref.caller);
    const before = await findVisibleCard(tx, access, cardId);
    authorize(access, { edit_card: { authorId: before.userId } });

    if (input.color && before.type === 'idea') throw invalid('color', msg('error.cards.color_on_idea'));
    let parentId = before.parentId;
    if (input.parent !== undefined && input.parent !== before.parentId) {
      if (before.type === 'cluster') throw invalid('parent', msg('error.cards.cluster_parent'));
      if (input.parent === null) throw invalid('parent', msg('error.cards.idea_without_parent'));
      parentId = (await requireCluster(tx, access, input.parent)).id;
    }

    // The new position is planned here and written by the document (with the SQL copy) below.
    const moves = parentId !== before.parentId || input.position !== undefined;
    const plan = moves ? new StackPlan(tx, ref.workshopId) : undefined;
    const position = plan ? await plan.move(before.parentId, parentId, before.id, input.position) : before.position;

    const updated = await updateCardRow(tx, before.id, {
      title: input.title ?? before.title,
      content: input.content ?? before.content,
      color: before.type === 'cluster' && input.color !== undefined ? input.color : before.color,
      aside: input.aside ?? before.aside,
      parentId,
    });
    await plan?.commit(deps, tx, changes);
    const row = { ...updated, position };
    const card = await cardFor(tx, access, row);
    const diff = diffFields(toCard(before, card.summary), card, UPDATABLE_FIELDS);
    if (Object.keys(diff).length > 0) {
      changes.record({
        workshopId: ref.workshopId,
        action: 'updateCard',
        userId: ref.caller.id,
        change: { card: await cardForEvent(tx, row), changes: diff },
      });
    }
    return card;
  });
}

export async function removeCard(deps: AppDeps, ref: WorkshopRef, cardId: string): Promise<void> {
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, ref.workshopId, ref.caller);
    const row = await findVisibleCard(tx, access, cardId);
    authorize(access, { delete_card: { authorId: row.userId } });
    const card = await cardForEvent(tx, row);

    const ideaIds = row.type === 'cluster' ? await ideaIdsOf(tx, row.id) : [];
    const plan = new StackPlan(tx, ref.workshopId);
    await plan.remove(row.parentId, row.id);
    // Ideas have no foreign key to their cluster; their feedback goes with them through card_id cascades.
    if (ideaIds.length > 0) await deleteIdeasOf(tx, row.id);
    await deleteCardRow(tx, row.id);
    plan.delete([row.id, ...ideaIds]);
    await plan.commit(deps, tx, changes);
    changes.record({
      workshopId: ref.workshopId,
      action: 'removeCard',
      userId: ref.caller.id,
      change: { card, removed_ids: ideaIds },
    });
    await unhookViewReferences(deps, tx, changes, ref, { cardIds: [row.id, ...ideaIds] });
    await relinkZones(deps, { tx, changes }, { ...ref, from: [row.id] });
  });
}
