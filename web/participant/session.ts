import {
  ApiError,
  type Attachment,
  type Card,
  type Comment,
  type Item,
  type Step,
  type Workshop,
  type WorkshopClient,
} from 'workshop-sdk';
import type { LiveWorkshop } from 'workshop-sdk/live';
import { Outbox, type Intent, type Request, type Waiting } from './outbox';
import { outboxKey } from './token';
import { VoteBook } from './votes';

/*
 * What the participant page knows beyond the SDK's live state: the person's own votes and
 * ratings (for the points left and the pressed values), the comments of the cards whose panel
 * was opened, and the writes waiting in the outbox. It turns the person's presses into writes and
 * takes the answers and the live events in; `render.ts` and `cards.ts` draw it all.
 */

/** A criterion as the workshop carries it, with the ratings the reader may see. */
export type Criterion = Workshop['criteria'][number];

export type Prefs = Pick<
  Step['prefs'],
  | 'allow_add_idea'
  | 'allow_add_cluster'
  | 'allow_vote_on_ideas'
  | 'allow_vote_on_clusters'
  | 'allow_display_votes'
  | 'allow_rate'
  | 'allow_comment'
  | 'allow_items'
  | 'allow_attachment'
  | 'allow_edit'
  | 'allow_delete'
>;

/** A workshop with no current step lets participants do everything (docs/api.md#who-may-do-what). */
export const DEFAULT_PREFS: Prefs = {
  allow_add_idea: true,
  allow_add_cluster: true,
  allow_vote_on_ideas: true,
  allow_vote_on_clusters: true,
  allow_display_votes: true,
  allow_rate: true,
  allow_comment: true,
  allow_items: true,
  allow_attachment: true,
  allow_edit: 'their',
  allow_delete: 'their',
};

/** The largest file the server takes (docs/api.md#authentication-and-errors: 413 above it). */
const FILE_MAX_BYTES = 20 * 1024 * 1024;
/** The lists of what is written on a card that the page reads when their panel opens. */
export type CardList = 'comments' | 'items' | 'attachments';

/** The logged actions that change each of a card's lists, and the member of their change holding the entry. */
const CARD_LIST_ACTIONS: Record<
  CardList,
  { member: string; written: readonly string[]; removed: string; cleared: string }
> = {
  comments: { member: 'comment', written: ['addComment'], removed: 'removeComment', cleared: 'removeComments' },
  items: { member: 'item', written: ['addItem', 'updateItem'], removed: 'removeItem', cleared: 'removeItems' },
  attachments: {
    member: 'attachment',
    written: ['addAttachment'],
    removed: 'removeAttachment',
    cleared: 'removeAttachments',
  },
};

/** How many cards' votes are read at once when the person's votes are counted. */
const READ_AT_ONCE = 4;
const RETRY_MS = 2_000;

const ratingKey = (cardId: string, criteriumId: string) => `${cardId} ${criteriumId}`;

export interface SessionHooks {
  changed(): void;
  /** A write the server refused for good, in words. */
  refused(text: string): void;
  ended(): void;
}

export class ParticipantSession {
  readonly votes = new VoteBook();
  /** The person's ratings by card and criterion. */
  readonly ratings = new Map<string, { id: string; value: number }>();
  /** The comments of each card whose panel was opened. */
  readonly comments = new Map<string, Comment[]>();
  /** The items of each card whose panel was opened. */
  readonly items = new Map<string, Item[]>();
  /** The attachments of each card whose panel was opened. */
  readonly attachments = new Map<string, Attachment[]>();
  /** The names of the files being sent, by card. */
  readonly sendingFiles = new Map<string, string[]>();
  /** Cards the server created for the person that the live state does not hold yet, with their label. */
  readonly arriving = new Map<string, string>();
  readonly outbox: Outbox;
  private ratingsReadFrom: unknown = null;
  private votesLoading = false;

  constructor(
    private readonly api: WorkshopClient,
    readonly workshopId: string,
    readonly me: string,
    readonly live: LiveWorkshop,
    private readonly hooks: SessionHooks,
  ) {
    this.outbox = new Outbox(outboxKey(workshopId), {
      resolve: (intent) => this.resolve(intent),
      send: (request, key) => this.send(request, key),
      refused: (item, error) => this.refused(item, error),
      ended: () => hooks.ended(),
      changed: () => hooks.changed(),
    });
    this.follow();
    this.readRatings(live.state.workshop.criteria);
    this.outbox.kick();
  }

  add(intent: Intent, label: string): void {
    this.outbox.add(intent, label);
  }

  /** The person's ratings, read again whenever the live state loads the workshop's criteria. */
  readRatings(criteria: Criterion[]): void {
    if (criteria === this.ratingsReadFrom) return;
    this.ratingsReadFrom = criteria;
    for (const criterion of criteria) {
      for (const rating of criterion.ratings)
        if (rating.user_id === this.me) this.ratings.set(ratingKey(rating.card_id, rating.criterium_id), rating);
    }
  }

  rating(cardId: string, criteriumId: string): { id: string; value: number } | undefined {
    return this.ratings.get(ratingKey(cardId, criteriumId));
  }

  /** Counts the person's votes once (card by card: there is no list of one's votes), then keeps them from answers and events. */
  loadVotes(): void {
    if (this.votes.loaded || this.votesLoading) return;
    this.votesLoading = true;
    this.readVotes(this.live.state.cards.map((card) => card.id)).then(
      () => {
        this.votes.loaded = true;
        this.votesLoading = false;
        this.hooks.changed();
        // A press waiting to know which vote it takes back can be sent now.
        this.outbox.kick();
      },
      () =>
        setTimeout(() => {
          this.votesLoading = false;
          this.loadVotes();
        }, RETRY_MS),
    );
  }

  /** Reads one of a card's lists (when its panel opens); what arrived live meanwhile is kept. */
  readCardList(kind: CardList, cardId: string): void {
    const params = { params: { path: { workshop_id: this.workshopId, card_id: cardId } } };
    const reading: Promise<Array<{ id: string }>> =
      kind === 'comments'
        ? this.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/comments', params)
        : kind === 'items'
          ? this.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/items', params)
          : this.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', params);
    const lists = this[kind] as Map<string, Array<{ id: string }>>;
    reading.then(
      (list) => {
        const known = lists.get(cardId) ?? [];
        lists.set(cardId, [...list, ...known.filter((written) => !list.some((read) => read.id === written.id))]);
        this.hooks.changed();
      },
      () => undefined,
    );
  }

  /**
   * Uploads a file and attaches it to the card, at once: a file is too big to wait in the outbox
   * (kept in the browser's storage), so without a connection the person is told to attach it
   * again later. The SDK's retries carry each request's key, so a cut-off answer lands once.
   */
  attach(card: Card, file: File): boolean {
    const name = file.name || 'file';
    const refusal =
      file.size > FILE_MAX_BYTES
        ? 'Files can be at most 20 MB.'
        : !navigator.onLine
          ? 'Attaching a file needs a connection: attach it again once you are online.'
          : null;
    if (refusal) {
      this.hooks.refused(`Not sent: “${name}”. ${refusal}`);
      return false;
    }
    const sending = (this.sendingFiles.get(card.id) ?? []).concat(name);
    this.sendingFiles.set(card.id, sending);
    this.hooks.changed();
    const upload = async () => {
      const { key, container } = await this.api.post('/v1/uploads', { body: { file } });
      const path = { workshop_id: this.workshopId, card_id: card.id };
      return this.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/attachments', {
        params: { path },
        body: { name, blob: { key, container } },
      });
    };
    upload()
      .then(
        (attachment) => this.wroteOnCard('attachments', card.id, attachment),
        (err: unknown) =>
          this.hooks.refused(
            `Not sent: “${name}”. ${err instanceof ApiError ? reasonOf(err) : 'The server could not be reached; attach it again.'}`,
          ),
      )
      .finally(() => {
        const left = (this.sendingFiles.get(card.id) ?? []).filter(
          (sent, at, all) => sent !== name || all.indexOf(name) !== at,
        );
        this.sendingFiles.set(card.id, left);
        this.hooks.changed();
      });
    return true;
  }

  /**
   * Takes in what the person wrote on a card: into its list when that was read, else the list is
   * read now (the card's counts in the live state are as it loaded them).
   */
  private wroteOnCard(kind: 'items', cardId: string, written: Item): void;
  private wroteOnCard(kind: 'attachments', cardId: string, written: Attachment): void;
  private wroteOnCard(kind: 'items' | 'attachments', cardId: string, written: { id: string }): void {
    const lists = this[kind] as Map<string, Array<{ id: string }>>;
    if (lists.has(cardId)) applyToCardList(lists, cardId, written);
    else this.readCardList(kind, cardId);
  }

  /** Applies a logged change to a comment, an item or an attachment to the lists read; false for any other change. */
  private followCardLists(action: string, change: Record<string, unknown> | undefined): boolean {
    for (const [kind, actions] of Object.entries(CARD_LIST_ACTIONS) as Array<
      [CardList, (typeof CARD_LIST_ACTIONS)[CardList]]
    >) {
      const lists = this[kind] as Map<string, Array<{ id: string }>>;
      if (action === actions.cleared) {
        for (const cardId of lists.keys()) lists.set(cardId, []);
        return true;
      }
      const entry = change?.[actions.member] as { id: string; card_id: string } | undefined;
      if (entry && (actions.written.includes(action) || action === actions.removed)) {
        applyToCardList(lists, entry.card_id, entry, action === actions.removed);
        return true;
      }
    }
    return false;
  }

  private async readVotes(cardIds: string[]): Promise<void> {
    const queue = [...cardIds];
    const reader = async () => {
      for (let cardId = queue.shift(); cardId !== undefined; cardId = queue.shift()) {
        const path = { workshop_id: this.workshopId, card_id: cardId };
        try {
          for (const vote of await this.api.get('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
            params: { path },
          })) {
            if (vote.user_id === this.me) this.votes.add(cardId, vote);
          }
        } catch (err) {
          // A card deleted meanwhile holds none.
          if (!(err instanceof ApiError && err.status === 404)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: READ_AT_ONCE }, reader));
  }

  /** The live events that change what the page keeps beside the SDK's state. */
  private follow(): void {
    const { live, me } = this;
    live.on('workshop:event', ({ action, change }) => {
      const vote = change?.vote as { id: string; value: number; user_id: string; card_id: string } | undefined;
      const rating = change?.rating as
        { id: string; value: number; user_id: string; card_id: string; criterium_id: string } | undefined;
      if ((action === 'addVote' || action === 'updateVote') && vote?.user_id === me) this.votes.add(vote.card_id, vote);
      else if (action === 'removeVote' && vote) this.votes.remove(vote.id);
      else if (action === 'removeVotes') this.votes.clear();
      else if ((action === 'addRating' || action === 'updateRating') && rating?.user_id === me)
        this.ratings.set(ratingKey(rating.card_id, rating.criterium_id), rating);
      else if (action === 'removeRating' && rating) this.ratings.delete(ratingKey(rating.card_id, rating.criterium_id));
      else if (action === 'removeRatings') this.ratings.clear();
      else if (!this.followCardLists(action, change)) {
        // The live state keeps sections and criteria as last loaded: a change to them is read again.
        if (action.endsWith('Section') || action.endsWith('Criterium')) void live.reload();
      }
      this.hooks.changed();
    });
    live.on('comment:created', ({ comment }) => {
      applyToCardList(this.comments, comment.card_id, comment);
      this.hooks.changed();
    });
    live.on('card:deleted', ({ card_id, removed_ids, merged_into }) => {
      for (const id of [card_id, ...removed_ids]) {
        this.votes.forgetCard(id);
        this.comments.delete(id);
        this.items.delete(id);
        this.attachments.delete(id);
        this.sendingFiles.delete(id);
      }
      // A merge moved the votes onto the new card.
      if (merged_into && this.votes.loaded)
        void this.readVotes([merged_into]).then(
          () => this.hooks.changed(),
          () => undefined,
        );
    });
    live.subscribe((state) => {
      for (const id of this.arriving.keys()) if (state.cards.some((card) => card.id === id)) this.arriving.delete(id);
      // Back live: whatever waits goes now rather than at its next retry.
      if (state.status === 'live') this.outbox.kick();
      this.hooks.changed();
    });
  }

  /**
   * The request for an intent, from what is known when it is first sent (every earlier write
   * answered); null for a press on a vote before the person's votes are counted (after a reload).
   */
  private resolve(intent: Intent): Request | null {
    switch (intent.kind) {
      case 'card':
        return { op: 'createCard', type: intent.type, title: intent.title, parent: intent.parent };
      case 'vote': {
        if (!this.votes.loaded) {
          this.loadVotes();
          return null;
        }
        const voteId = this.votes.toWithdraw(intent.cardId, intent.direction);
        return voteId
          ? { op: 'withdrawVote', cardId: intent.cardId, voteId }
          : { op: 'castVote', cardId: intent.cardId, value: intent.direction };
      }
      case 'rate': {
        const mine = this.rating(intent.cardId, intent.criteriumId);
        return mine
          ? { op: 'changeRating', cardId: intent.cardId, ratingId: mine.id, value: intent.value }
          : { op: 'rate', ...intent };
      }
      case 'comment':
        return { op: 'comment', cardId: intent.cardId, content: intent.content };
      case 'item':
        return { op: 'addItem', cardId: intent.cardId, sectionId: intent.sectionId, content: intent.content };
      case 'edit':
        return { op: 'editCard', cardId: intent.cardId, title: intent.title };
      case 'delete':
        return { op: 'deleteCard', cardId: intent.cardId };
    }
  }

  /** Sends one request with its key (the same at every attempt) and takes the answer in. */
  private async send(request: Request, key: string): Promise<void> {
    const headers = { 'Idempotency-Key': key };
    const workshop_id = this.workshopId;
    switch (request.op) {
      case 'createCard': {
        const { type, title, parent } = request;
        const body = parent ? { type, title, parent } : { type, title };
        const card = await this.api.post('/v1/workshops/{workshop_id}/cards', {
          params: { path: { workshop_id } },
          body,
          headers,
        });
        if (!this.live.state.cards.some(({ id }) => id === card.id))
          this.arriving.set(card.id, `${type === 'idea' ? 'Idea' : 'Cluster'} “${title}”`);
        return;
      }
      case 'castVote': {
        const path = { workshop_id, card_id: request.cardId };
        this.votes.add(
          request.cardId,
          await this.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
            params: { path },
            body: { value: request.value },
            headers,
          }),
        );
        return;
      }
      case 'withdrawVote': {
        const path = { workshop_id, card_id: request.cardId, id: request.voteId };
        await this.api
          .delete('/v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}', { params: { path }, headers })
          .catch(gone);
        this.votes.remove(request.voteId);
        return;
      }
      case 'rate': {
        const path = { workshop_id, card_id: request.cardId };
        const body = { criterium_id: request.criteriumId, value: request.value };
        const rating = await this.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
          params: { path },
          body,
          headers,
        });
        this.ratings.set(ratingKey(rating.card_id, rating.criterium_id), rating);
        return;
      }
      case 'changeRating': {
        const path = { workshop_id, card_id: request.cardId, id: request.ratingId };
        const rating = await this.api.put('/v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}', {
          params: { path },
          body: { value: request.value },
          headers,
        });
        this.ratings.set(ratingKey(rating.card_id, rating.criterium_id), rating);
        return;
      }
      case 'comment': {
        const path = { workshop_id, card_id: request.cardId };
        const comment = await this.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/comments', {
          params: { path },
          body: { content: request.content },
          headers,
        });
        applyToCardList(this.comments, request.cardId, comment);
        return;
      }
      case 'addItem': {
        const path = { workshop_id, card_id: request.cardId };
        const body = { section_id: request.sectionId, content: request.content };
        this.wroteOnCard(
          'items',
          request.cardId,
          await this.api.post('/v1/workshops/{workshop_id}/cards/{card_id}/items', { params: { path }, body, headers }),
        );
        return;
      }
      case 'editCard': {
        const path = { workshop_id, id: request.cardId };
        await this.api.put('/v1/workshops/{workshop_id}/cards/{id}', {
          params: { path },
          body: { title: request.title },
          headers,
        });
        return;
      }
      case 'deleteCard': {
        const path = { workshop_id, id: request.cardId };
        await this.api.delete('/v1/workshops/{workshop_id}/cards/{id}', { params: { path }, headers }).catch(gone);
        return;
      }
    }
  }

  /** Whether the current step's `allow_edit` or `allow_delete` lets the person change this card. */
  mayChange(scope: Prefs['allow_edit'], card: Card): boolean {
    return scope === 'all' || (scope === 'their' && isMine(card, this.me));
  }

  private refused(item: Waiting, error: ApiError): void {
    const { intent, request } = item;
    // A rating made elsewhere meanwhile, or one removed: rated again against what is there now.
    if (
      intent.kind === 'rate' &&
      (error.code === 'already_rated' || (request?.op === 'changeRating' && error.status === 404))
    ) {
      this.ratings.delete(ratingKey(intent.cardId, intent.criteriumId));
      const path = { workshop_id: this.workshopId, card_id: intent.cardId };
      void this.api
        .get('/v1/workshops/{workshop_id}/cards/{card_id}/ratings', {
          params: { path, query: { criterium_id: intent.criteriumId } },
        })
        .then((found) => {
          const mine = found.find((rating) => rating.user_id === this.me);
          if (mine) this.ratings.set(ratingKey(intent.cardId, intent.criteriumId), mine);
        })
        .finally(() => this.add(intent, item.label));
      return;
    }
    this.hooks.refused(`Not sent: ${item.label}. ${reasonOf(error)}`);
  }
}

/** Something written on a card whose list was read (an item, an attachment): added, changed or gone. */
function applyToCardList<T extends { id: string }>(
  lists: Map<string, T[]>,
  cardId: string,
  written: T,
  gone = false,
): void {
  const list = lists.get(cardId);
  if (!list) return;
  const known = list.some(({ id }) => id === written.id);
  if (gone)
    lists.set(
      cardId,
      list.filter(({ id }) => id !== written.id),
    );
  else lists.set(cardId, known ? list.map((kept) => (kept.id === written.id ? written : kept)) : [...list, written]);
}

/** A vote withdrawn or a card deleted already (by someone else, or an earlier attempt whose answer was lost) is gone as asked. */
function gone(err: unknown): void {
  if (!(err instanceof ApiError && err.status === 404)) throw err;
}

function reasonOf(error: ApiError): string {
  switch (error.code) {
    case 'vote_limit_reached':
      return 'No points left for it.';
    case 'forbidden':
      return 'The current step does not allow it any more.';
    case 'workshop_archived':
      return 'The workshop is archived.';
    case 'not_found':
      return 'The card is gone.';
    case 'invalid_request':
      return error.details[0]?.message ?? error.message;
    case 'upload_quota_exceeded':
      return `You've uploaded as much as you can today. ${tryAgainIn(error.retryAfter)}`;
    case 'workshop_storage_full':
      return 'This workshop has no room left for more files.';
    default:
      return error.message;
  }
}

/** When a file fits again, in the rough words a person plans by. */
function tryAgainIn(seconds: number | null): string {
  if (seconds === null) return 'Try again tomorrow.';
  if (seconds < 90) return 'Try again in a minute.';
  if (seconds < 90 * 60) return `Try again in ${Math.round(seconds / 60)} minutes.`;
  const hours = Math.round(seconds / 3600);
  return hours === 1 ? 'Try again in an hour.' : `Try again in ${hours} hours.`;
}

/** Whether the person wrote it (a card, a comment); one whose author is hidden from them (`user_id: null`) is someone else's. */
export function isMine(written: { user_id: string | null }, me: string): boolean {
  return written.user_id !== null && written.user_id === me;
}

/** The card a label names, short enough for a line. */
export function named(card: Card): string {
  return card.title.length > 60 ? `${card.title.slice(0, 59)}…` : card.title;
}
