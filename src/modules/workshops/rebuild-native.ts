import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { newId, nowIso } from '../../db/columns';
import type { UserRow } from '../../http/env';
import { DEFAULT_PREFS } from '../../domain/permissions';
import { write } from '../../db/write';
import type { NativeDocument } from '../exports/native-schema';
import { mergePrefs } from '../../domain/prefs';
import { announceCreated } from './create-from';
import { insertWorkshop } from './repo';
import { existingUserIds, insertCanvasRow, insertRowsOf } from './copy-repo';
import type { WorkshopOutput } from '../../domain/workshops';
import { remapView } from '../../domain/view';
import { surplusLinks } from '../../domain/canvas';
import { isLanguage } from '../../domain/languages';
import type { CreateWorkshopInput } from './schemas';

/*
 * Rebuilding a checked native file (`create-from-native.ts` fetches and checks it) as a new
 * workshop of the caller, in one transaction, with new ids everywhere.
 */

/** Rebuilds the document as a new workshop of `user`, with new ids everywhere. */
export function importNative(
  deps: AppDeps,
  user: UserRow,
  doc: NativeDocument,
  { title, language }: Pick<CreateWorkshopInput, 'title' | 'language'>,
  options: { keepAuthors: boolean },
): Promise<WorkshopOutput> {
  // A new workshop, with no row to lock yet: a plain write.
  return write(deps, async (tx, changes) => {
    // New ids per kind of row: a file may reuse one id for, say, a step and a card.
    const ids = new Map<string, string>();
    const freshFor = (kind: string) => (id: string) => {
      let mapped = ids.get(`${kind}\n${id}`);
      if (!mapped) ids.set(`${kind}\n${id}`, (mapped = newId()));
      return mapped;
    };
    const fresh = {
      step: freshFor('step'),
      criterion: freshFor('criterion'),
      section: freshFor('section'),
      card: freshFor('card'),
      zone: freshFor('zone'),
    };
    const known = options.keepAuthors ? await knownAuthors(tx, doc, user.id) : () => user.id;
    // A row the file names no author for (an anonymous one,
    // docs/api.md#private-writing-and-anonymous-authors) is the importer's, as are those whose
    // author has no account here.
    const authors = (userId: string | null) => (userId === null ? user.id : known(userId));
    const now = nowIso();
    const newIds = { card: fresh.card, criterion: fresh.criterion };

    const source = doc.workshop;
    const workshop = await insertWorkshop(tx, {
      owner: { type: 'user', id: user.id },
      creatorId: user.id,
      title: title ?? source.title,
      description: source.description,
      dailyMail: source.daily_mail,
      changeStepNotifications: source.change_step_notifications,
      forceSync: source.force_sync,
      language:
        language ?? (source.language !== undefined && isLanguage(source.language) ? source.language : user.locale),
      view: remapView(source.view, newIds),
      extra: {
        votePositive: source.vote_limit.positive,
        voteNegative: source.vote_limit.negative,
        voteMaxPositive: source.vote_limit.max_positive,
        voteMaxNegative: source.vote_limit.max_negative,
        lastCardNumber: Math.max(source.last_card_number, ...doc.cards.map((c) => c.short_id), 0),
        currentStepId: source.current_step_id ? fresh.step(source.current_step_id) : null,
      },
    });
    const workshopId = workshop.id;
    const base = { workshopId, createdAt: now, updatedAt: now };

    await insertRowsOf(
      tx,
      'steps',
      doc.steps.map((step, position) => ({
        ...base,
        id: fresh.step(step.id),
        position,
        name: step.name,
        instructions: step.instructions,
        prefs: mergePrefs(DEFAULT_PREFS, step.prefs),
        view: remapView(step.view, newIds),
      })),
    );
    await insertRowsOf(
      tx,
      'criteria',
      doc.criteria.map((c, position) => ({
        ...base,
        id: fresh.criterion(c.id),
        title: c.title,
        scale: c.scale,
        position,
      })),
    );
    await insertRowsOf(
      tx,
      'sections',
      doc.sections.map((s, position) => ({ ...base, id: fresh.section(s.id), title: s.title, position })),
    );

    // Positions among siblings are kept in their order and made 0..n-1 whatever the file says.
    const stacks = new Map<string | null, NativeDocument['cards']>();
    for (const card of doc.cards) stacks.set(card.parent_id, [...(stacks.get(card.parent_id) ?? []), card]);
    const positions = new Map<string, number>();
    for (const stack of stacks.values()) {
      [...stack]
        .sort((a, b) => a.position - b.position || a.short_id - b.short_id)
        .forEach((card, position) => positions.set(card.id, position));
    }
    await insertRowsOf(
      tx,
      'cards',
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
        authorVisibility: card.author_visibility,
        createdAt: card.created_at,
        updatedAt: now,
      })),
    );
    await insertRowsOf(
      tx,
      'votes',
      doc.votes.map((vote) => ({
        workshopId,
        id: newId(),
        cardId: fresh.card(vote.card_id),
        userId: authors(vote.user_id),
        value: vote.value,
        createdAt: vote.created_at,
        updatedAt: now,
      })),
    );
    // One rating per user, card and criterion: when authors fold into the caller, the latest stays.
    const latestRatings = new Map<string, NativeDocument['ratings'][number] & { userId: string }>();
    for (const rating of doc.ratings) {
      const userId = authors(rating.user_id);
      const key = `${rating.card_id}\n${rating.criterium_id}\n${userId}`;
      const kept = latestRatings.get(key);
      if (!kept || kept.created_at <= rating.created_at) latestRatings.set(key, { ...rating, userId });
    }
    await insertRowsOf(
      tx,
      'ratings',
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
    await insertRowsOf(
      tx,
      'items',
      doc.items.map((item) => ({
        workshopId,
        id: newId(),
        cardId: fresh.card(item.card_id),
        sectionId: fresh.section(item.section_id),
        userId: authors(item.user_id),
        authorVisibility: item.author_visibility,
        content: item.content,
        createdAt: item.created_at,
        updatedAt: now,
      })),
    );
    await insertRowsOf(
      tx,
      'comments',
      doc.comments.map((comment) => ({
        workshopId,
        id: newId(),
        cardId: fresh.card(comment.card_id),
        userId: authors(comment.user_id),
        authorVisibility: comment.author_visibility,
        content: comment.content,
        createdAt: comment.created_at,
      })),
    );
    if (doc.canvas) {
      const canvas = await insertCanvasRow(tx, {
        ...base,
        name: doc.canvas.name,
        backgroundId: doc.canvas.background_id,
        backgroundCols: doc.canvas.background.cols,
        backgroundRows: doc.canvas.background.rows,
        image: doc.canvas.image,
      });
      // The document is built from these rows (and the cards' x/y) when it first loads. A file
      // written before a cluster was linked by one zone at most may name it in several: the zones
      // the document's rule unlinks start unlinked.
      const cards = new Map(doc.cards.map((card) => [card.id, card]));
      const zones = new Map(doc.canvas.zones.map(({ id, ...zone }) => [id, zone]));
      const unlinked = new Set(surplusLinks(zones, (clusterId) => cards.get(clusterId) ?? null));
      await insertRowsOf(
        tx,
        'zones',
        doc.canvas.zones.map((zone, position) => ({
          ...base,
          id: fresh.zone(zone.id),
          canvasId: canvas.id,
          name: zone.name,
          x: zone.x,
          y: zone.y,
          rows: zone.rows,
          cols: zone.cols,
          clusterId: zone.cluster_id && !unlinked.has(zone.id) ? fresh.card(zone.cluster_id) : null,
          position,
        })),
      );
    }
    return announceCreated(deps, tx, changes, workshopId, user.id);
  });
}

/** Maps a file's user ids to accounts of this service: the same account when it exists, the caller otherwise. */
async function knownAuthors(tx: Db, doc: NativeDocument, callerId: string): Promise<(userId: string) => string> {
  const named = new Set<string>();
  for (const list of [doc.cards, doc.votes, doc.ratings, doc.items, doc.comments])
    for (const row of list) if (row.user_id !== null) named.add(row.user_id);
  const existing = new Set(await existingUserIds(tx, [...named]));
  return (userId) => (existing.has(userId) ? userId : callerId);
}
