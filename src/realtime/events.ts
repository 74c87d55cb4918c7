/**
 * The Socket.IO event maps shared by the server and the client SDK. Payloads are shaped like the
 * REST resources (snake_case, ISO timestamps).
 *
 * Sequence numbers: every logged change of a workshop has a `seq` (the same number as in
 * `GET /v1/workshops/:id/events`), increasing by one per change. Each change reaches every joined
 * client as at least one event carrying its `seq`; a change may produce several events with the
 * same `seq` (`workshop:updated` + `view:changed`, `card:created` + `card:deleted` for a merge).
 * A client remembers the highest `seq` it saw: a jump of more than one means it missed something,
 * and it joins again with `since_seq` to have the gap replayed (or is told to reload).
 */
import type { CardOutput } from '../domain/cards';
import type { CommentOutput } from '../domain/comments';
import type { ExportOutput, FieldChanges } from '../domain/events';
import type { NotificationOutput } from '../modules/notifications/schemas';
import type { ParticipationOutput } from '../modules/participation/schemas';
import type { StepOutput } from '../domain/steps';
import type { TimerOutput } from '../domain/timer';
import type { WorkshopOutput } from '../domain/workshops';
import type { View } from '../domain/view';

export type { ExportOutput, FieldChanges } from '../domain/events';

/** Members every workshop-scoped event starts with. */
export interface Sequenced {
  /** The change's number in the workshop's log. */
  seq: number;
  workshop_id: string;
}

/**
 * The workshop as `workshop:updated` carries it: the REST resource without `criteria`. Criteria
 * carry ratings, and which ratings a reader may see depends on the reader (display prefs), while
 * this event is one rendering for the whole room; criteria changes arrive as their own
 * `workshop:event`s, and `GET /v1/workshops/:id` gives the criteria as the reader may see them.
 */
export type WorkshopUpdatedOutput = Omit<WorkshopOutput, 'criteria'>;

/** The workshop's settings changed (`updateWorkshop`); `workshop` leaves out `criteria` (see above). */
export interface WorkshopUpdatedPayload extends Sequenced {
  workshop: WorkshopUpdatedOutput;
  changes: FieldChanges;
}

/** The facilitator moved the workshop to another step (`changeStep`); `step` is null when none is current. */
export interface StepChangedPayload extends Sequenced {
  step: StepOutput | null;
}

/**
 * What participants' screens should show: sent with every step change, and with any workshop
 * update that changed `view` or `force_sync`. With `force_sync` true, clients follow it.
 */
export interface ViewChangedPayload extends Sequenced {
  view: View;
  force_sync: boolean;
}

/**
 * A card was added (`addCard`) or made from others (`mergeCards`). `summary.score` is what the
 * receiver may see: with `allow_display_votes: false`, participants get only their own votes' sum.
 */
export interface CardCreatedPayload extends Sequenced {
  card: CardOutput;
}

/** A card's fields changed (`updateCard`); `card` is as after the change (score as above). */
export interface CardUpdatedPayload extends Sequenced {
  card: CardOutput;
  changes: FieldChanges;
}

/** A card is gone (`removeCard`, or merged into another by `mergeCards`). */
export interface CardDeletedPayload extends Sequenced {
  card_id: string;
  /** Every card that went with it: the card itself and, for a cluster, its ideas. */
  removed_ids: string[];
  /** For a merge, the card it was merged into (its ideas now sit under that card); else null. */
  merged_into: string | null;
}

/**
 * A card's score changed (`addVote`, `updateVote`, `removeVote`), as the receiver may see it:
 * facilitators get the sum of all votes; with `allow_display_votes: false`, a participant gets the
 * sum of their own votes, and the score of other people's votes does not reach them at all (they get
 * `workshop:event` with the bare `seq` and `action` instead). After `removeVotes` (every vote of the
 * workshop removed at once) `card_id` is null and `score` is 0: every card's score is now 0.
 */
export interface ScoreChangedPayload extends Sequenced {
  card_id: string | null;
  score: number;
}

/** A comment was added to a card (`addComment`). */
export interface CommentCreatedPayload extends Sequenced {
  comment: CommentOutput & { card_id: string };
}

/**
 * An export was requested or changed state (`addExport`, `updateExport`), or was deleted
 * (`removeExport`, as `export:deleted` with the export as it was). Facilitators only: an export
 * holds every vote and rating, and its link downloads without a token.
 */
export interface ExportUpdatedPayload extends Sequenced {
  export: ExportOutput;
}

/**
 * Any other logged change (`addStep`, `addRating`, `addMember`, `removeComment`, ...), with the
 * log's `change` (`{resource, changes?}`). `change` is absent when the receiver may not see it
 * (other people's votes or ratings hidden by the current step): the event still arrives so the
 * sequence has no hole. `reload: true` means refetch the workshop's cards: the change is too large
 * to describe (`importCards`; `removeUser`, an account deleted, whose cards, comments, items, votes,
 * ratings and seat read with no author from then on: refetch what you hold of those too), or, for
 * participants, it changed whose cards they may read (`changeStep`, or `updateStep` of the current
 * step, moving `cards_visible`: the reveal, or the cards hidden again); it follows that change's
 * other events, with the same `seq`.
 * `removeWorkshop` arrives with `seq: 0` (the workshop and its log are gone) and ends the
 * subscription.
 */
export interface WorkshopEventPayload extends Sequenced {
  action: string;
  change?: Record<string, unknown>;
  reload?: true;
}

/**
 * The workshop's timer changed (`changeTimer`, docs/api.md#timer). `timer.server_time` is the server's
 * clock as the event was sent (and `remaining_s` as it read then): a client counts down to
 * `ends_at` corrected by the difference between its clock and the server's.
 */
export interface TimerChangedPayload extends Sequenced {
  timer: TimerOutput;
}

/**
 * How many participants have voted and rated (docs/api.md#participation), as `GET …/participation` answers: with
 * `users` for facilitators. Sent after votes, ratings and membership changes, at most once a second
 * per workshop with the latest counts; it carries no `seq` and is not in the log.
 */
export type ParticipationChangedPayload = { workshop_id: string } & ParticipationOutput;

/** A connected user, as presence lists them. */
export interface PresenceUser {
  id: string;
  name: string;
  avatar_url: string | null;
  /** A guest (docs/api.md#guests): joined with the code and a name. */
  guest: boolean;
}

/**
 * Who is connected to the workshop, on any instance; a user with several tabs is listed once.
 * Sent to the workshop's room shortly after someone joins, leaves or disconnects (changes close
 * together are combined into one event). `users` lists facilitators first, at most
 * `PRESENCE_LIST_LIMIT` of them; `count` is the number of distinct connected users.
 */
export interface PresencePayload {
  workshop_id: string;
  users: PresenceUser[];
  count: number;
}

/** The most users a presence event lists; `count` still counts them all. */
export const PRESENCE_LIST_LIMIT = 100;

/** Events the server sends. */
export interface ServerToClientEvents {
  'workshop:updated': (payload: WorkshopUpdatedPayload) => void;
  'step:changed': (payload: StepChangedPayload) => void;
  'view:changed': (payload: ViewChangedPayload) => void;
  'card:created': (payload: CardCreatedPayload) => void;
  'card:updated': (payload: CardUpdatedPayload) => void;
  'card:deleted': (payload: CardDeletedPayload) => void;
  'score:changed': (payload: ScoreChangedPayload) => void;
  'comment:created': (payload: CommentCreatedPayload) => void;
  'export:updated': (payload: ExportUpdatedPayload) => void;
  'export:deleted': (payload: ExportUpdatedPayload) => void;
  'timer:changed': (payload: TimerChangedPayload) => void;
  /** Derived state: no `seq`; `users` only for facilitators. At most one a second per workshop. */
  'participation:changed': (payload: ParticipationChangedPayload) => void;
  'workshop:event': (payload: WorkshopEventPayload) => void;
  presence: (payload: PresencePayload) => void;
  /** One of the user's notifications, as `GET /v1/notifications` lists it; only to that user. */
  notification: (payload: NotificationOutput) => void;
}

/** The server-side name of each workshop-scoped event. */
export type WorkshopEventName = Exclude<
  keyof ServerToClientEvents,
  'presence' | 'notification' | 'participation:changed'
>;

/** Error codes a `join` may answer with (docs/api.md#authentication-and-errors). */
export type JoinErrorCode =
  'invalid_request' | 'not_found' | 'sso_required' | 'rate_limited' | 'service_unavailable' | 'internal_error';

export interface SocketError {
  code: JoinErrorCode;
  message: string;
  details?: Array<{ path: string; message: string }>;
  /** With `rate_limited` and `service_unavailable`: seconds before joining again may succeed. */
  retry_after?: number;
}

/**
 * `join` request. With `since_seq` (the highest `seq` the client saw), the events it missed are
 * sent, oldest first, before the ack.
 */
export interface JoinRequest {
  workshop_id: string;
  since_seq?: number;
}

/**
 * `join` answer. `seq` is the workshop's latest `seq` at the time of joining. `replayed` counts
 * the events sent for `since_seq`. `reload: true` means the gap was too large (more than
 * `MAX_REPLAY` events), `since_seq` is unknown to the server, or the user asked for more replays
 * than a minute allows: refetch the workshop over REST, then keep `seq` as the last seen. A join
 * past the join limits (by default ten per socket in ten seconds, sixty per user a minute) is
 * answered `rate_limited` with `retry_after`.
 */
export type JoinAck = { ok: true; seq: number; replayed?: number; reload?: true } | { ok: false; error: SocketError };

/** The most events a resume replays; a larger gap answers `reload: true`. */
export const MAX_REPLAY = 500;

export interface LeaveRequest {
  workshop_id: string;
}

export type LeaveAck = { ok: true } | { ok: false; error: SocketError };

/** Events the client sends. */
export interface ClientToServerEvents {
  /** Joins a workshop's live events (members only; others get `not_found`). */
  join: (request: JoinRequest, ack?: (answer: JoinAck) => void) => void;
  /** Stops receiving a workshop's events. */
  leave: (request: LeaveRequest, ack?: (answer: LeaveAck) => void) => void;
}

/** Nothing is sent between instances outside the adapter's own protocol. */
export type InterServerEvents = Record<string, never>;

/** What the server keeps on each socket (visible to other instances through `fetchSockets`). */
export interface SocketData {
  user: PresenceUser;
  /** Hash of the bearer token the socket connected with: its logout ends the socket. */
  tokenHash: string;
  /** How that token's session was opened: `sso_required` organizations refuse `password` ones. */
  signInMethod: 'password' | 'oidc';
}
