import { sqliteOf, type Db } from '../db/client';
import { preparedPerDb } from '../db/prepared';
import type { CardOutput } from '../modules/cards/schemas';
import type { WorkshopEvent } from '../modules/events/bus';
import { DEFAULT_PREFS } from '../modules/access/rules';
import type { StepOutput } from '../modules/steps/schemas';
import type { WorkshopRole } from '../modules/access/rules';
import type { WorkshopOutput } from '../modules/workshops/schemas';
import type {
  CommentCreatedPayload,
  ExportOutput,
  FieldChanges,
  ServerToClientEvents,
  WorkshopEventName,
} from './events';

/**
 * Who receives one rendering of a change. The audiences of one change never overlap for the same
 * event name, so every joined socket gets each event of the change at most once.
 */
export type Audience =
  | { to: 'workshop' }
  | { to: 'facilitators' }
  /** Participants, except these users (they get their own rendering). */
  | { to: 'participants'; except: readonly string[] }
  /** This user's sockets, if the user is a participant. */
  | { to: 'participant'; userId: string };

export type Delivery = {
  [E in WorkshopEventName]: { audience: Audience; event: E; payload: Parameters<ServerToClientEvents[E]>[0] };
}[WorkshopEventName];

const EVERYONE: Audience = { to: 'workshop' };
const FACILITATORS: Audience = { to: 'facilitators' };

/** Whether a socket of `userId` in `role` is part of `audience` (replay picks its renderings this way). */
export function audienceIncludes(audience: Audience, role: WorkshopRole, userId: string): boolean {
  switch (audience.to) {
    case 'workshop':
      return true;
    case 'facilitators':
      return role === 'facilitator';
    case 'participants':
      return role === 'participant' && !audience.except.includes(userId);
    case 'participant':
      return role === 'participant' && audience.userId === userId;
  }
}

const VOTE_ACTIONS = new Set(['addVote', 'updateVote', 'removeVote']);
const RATING_ACTIONS = new Set(['addRating', 'updateRating', 'removeRating']);

/** They run for every card and feedback change, so they are plain prepared statements. */
const statements = preparedPerDb((db: Db) => {
  const sqlite = sqliteOf(db);
  return {
    displayPrefs: sqlite.prepare<[string], { votes: number | null; ratings: number | null }>(
      `SELECT json_extract(s.prefs, '$.allow_display_votes') AS votes, json_extract(s.prefs, '$.allow_display_ratings') AS ratings
         FROM workshops w LEFT JOIN steps s ON s.id = w.current_step_id WHERE w.id = ?`,
    ),
    score: sqlite.prepare<[string], { score: number }>('SELECT coalesce(sum(value), 0) AS score FROM votes WHERE card_id = ?'),
    scoreOf: sqlite.prepare<[string, string], { score: number }>(
      'SELECT coalesce(sum(value), 0) AS score FROM votes WHERE card_id = ? AND user_id = ?',
    ),
    voterScores: sqlite.prepare<[string], { userId: string; score: number }>(
      'SELECT user_id AS userId, sum(value) AS score FROM votes WHERE card_id = ? GROUP BY user_id',
    ),
  };
});

/**
 * Turns one logged change into the socket events it produces, each with its audience. Live
 * broadcasts and resume replays both go through here, so a replayed event reads exactly as the
 * live one would now. Scores and visibility follow the current step's display prefs, like the
 * REST log (`modules/events/log.ts`): participants never receive other people's hidden votes or
 * ratings, only the bare `seq` and `action`.
 */
export function deliveriesFor(db: Db, event: WorkshopEvent): Delivery[] {
  const q = statements(db);
  const head = { seq: event.seq, workshop_id: event.workshopId };
  const change = event.change;

  const displays = () => {
    const row = q.displayPrefs.get(event.workshopId);
    return {
      votes: row?.votes == null ? DEFAULT_PREFS.allow_display_votes : row.votes === 1,
      ratings: row?.ratings == null ? DEFAULT_PREFS.allow_display_ratings : row.ratings === 1,
    };
  };
  const generic = (audience: Audience = EVERYONE): Delivery => ({ audience, event: 'workshop:event', payload: { ...head, action: event.action, change } });
  /** Content for facilitators and the feedback's owner; the bare sequence number for other participants. */
  const ownedBy = (ownerId: string, full: Delivery, own: Delivery): Delivery[] => [
    full,
    own,
    { audience: { to: 'participants', except: [ownerId] }, event: 'workshop:event', payload: { ...head, action: event.action } },
  ];

  /** A card rendered for each reader: full score, or each participant's own votes when those are hidden. */
  const cardDeliveries = (name: 'card:created' | 'card:updated', card: CardOutput, render: (card: CardOutput) => Delivery['payload']) => {
    const make = (audience: Audience, score: number) => ({ audience, event: name, payload: render({ ...card, summary: { ...card.summary, score } }) }) as Delivery;
    const full = q.score.get(card.id)!.score;
    if (displays().votes) return [make(EVERYONE, full)];
    const voters = q.voterScores.all(card.id);
    return [
      make(FACILITATORS, full),
      ...voters.map((v) => make({ to: 'participant', userId: v.userId }, v.score)),
      make({ to: 'participants', except: voters.map((v) => v.userId) }, 0),
    ];
  };

  switch (event.action) {
    case 'updateWorkshop': {
      const workshop = change.workshop as WorkshopOutput;
      const changes = (change.changes ?? {}) as FieldChanges;
      // Criteria carry ratings that not every reader may see; this rendering goes to everyone.
      const { criteria: _perReader, ...shared } = workshop;
      const deliveries: Delivery[] = [{ audience: EVERYONE, event: 'workshop:updated', payload: { ...head, workshop: shared, changes } }];
      if ('view' in changes || 'force_sync' in changes) {
        deliveries.push({ audience: EVERYONE, event: 'view:changed', payload: { ...head, view: workshop.view, force_sync: workshop.force_sync } });
      }
      return deliveries;
    }
    case 'changeStep': {
      const workshop = change.workshop as WorkshopOutput;
      return [
        { audience: EVERYONE, event: 'step:changed', payload: { ...head, step: (change.step ?? null) as StepOutput | null } },
        { audience: EVERYONE, event: 'view:changed', payload: { ...head, view: workshop.view, force_sync: workshop.force_sync } },
      ];
    }
    case 'addCard':
      return cardDeliveries('card:created', change.card as CardOutput, (card) => ({ ...head, card }));
    case 'updateCard': {
      const changes = (change.changes ?? {}) as FieldChanges;
      return cardDeliveries('card:updated', change.card as CardOutput, (card) => ({ ...head, card, changes }));
    }
    case 'removeCard': {
      const card = change.card as CardOutput;
      const removed = [card.id, ...((change.removed_ids ?? []) as string[])];
      return [{ audience: EVERYONE, event: 'card:deleted', payload: { ...head, card_id: card.id, removed_ids: removed, merged_into: null } }];
    }
    case 'mergeCards': {
      const card = change.card as CardOutput;
      const merged = (change.merged_ids ?? []) as string[];
      return [
        ...cardDeliveries('card:created', card, (c) => ({ ...head, card: c })),
        ...merged.map((id): Delivery => ({ audience: EVERYONE, event: 'card:deleted', payload: { ...head, card_id: id, removed_ids: [id], merged_into: card.id } })),
      ];
    }
    case 'importCards':
      return [{ audience: EVERYONE, event: 'workshop:event', payload: { ...head, action: event.action, change, reload: true } }];
    case 'removeVotes':
      return [{ audience: EVERYONE, event: 'score:changed', payload: { ...head, card_id: null, score: 0 } }];
    case 'addComment':
      return [{ audience: EVERYONE, event: 'comment:created', payload: { ...head, comment: change.comment as CommentCreatedPayload['comment'] } }];
    case 'addExport':
    case 'updateExport':
      return [{ audience: EVERYONE, event: 'export:updated', payload: { ...head, export: change.export as ExportOutput } }];
  }

  if (VOTE_ACTIONS.has(event.action)) {
    const vote = change.vote as { card_id: string; user_id?: string };
    const full = q.score.get(vote.card_id)!.score;
    const scored = (audience: Audience, score: number): Delivery => ({ audience, event: 'score:changed', payload: { ...head, card_id: vote.card_id, score } });
    if (displays().votes) return [scored(EVERYONE, full)];
    const owner = vote.user_id ?? event.userId ?? '';
    return ownedBy(owner, scored(FACILITATORS, full), scored({ to: 'participant', userId: owner }, q.scoreOf.get(vote.card_id, owner)!.score));
  }
  if (RATING_ACTIONS.has(event.action)) {
    if (displays().ratings) return [generic()];
    const owner = (change.rating as { user_id?: string } | undefined)?.user_id ?? event.userId ?? '';
    return ownedBy(owner, generic(FACILITATORS), generic({ to: 'participant', userId: owner }));
  }
  return [generic()];
}
