import { ApiError, type Attachment, type Card, type Comment, type Item, type WorkshopClient } from 'workshop-sdk';
import type { LiveWorkshop } from 'workshop-sdk/live';
import { applyToCardList, followCardLists, type CardList } from './card-lists';
import { Outbox, type Intent, type Waiting } from './outbox';
import { ratingKey, requestFor, sendRequest } from './outbox-requests';
import type { Criterion, Prefs } from './step-prefs';
import { outboxKey } from '../shared/participant-token';
import { followVote, readOwnVotes, VoteBook } from '../shared/votes';
import { reasonOf } from './write-refusals';
import { t } from '../shared/i18n';

/*
 * What the participant page knows beyond the SDK's live state: the person's own votes and
 * ratings (for the points left and the pressed values), the comments of the cards whose panel
 * was opened, and the writes waiting in the outbox. It turns the person's presses into writes
 * (`outbox-requests.ts`) and takes the answers and the live events in; `render.ts` and `cards.ts` draw it all.
 */

/** The largest file the server takes (docs/api.md#authentication-and-errors: 413 above it). */
const FILE_MAX_BYTES = 20 * 1024 * 1024;

/** How many cards' votes are read at once when the person's votes are counted. */
const READ_AT_ONCE = 4;
const RETRY_MS = 2_000;

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
    readonly api: WorkshopClient,
    readonly workshopId: string,
    readonly me: string,
    readonly live: LiveWorkshop,
    private readonly hooks: SessionHooks,
  ) {
    this.outbox = new Outbox(outboxKey(workshopId), {
      resolve: (intent) => requestFor(this, intent),
      send: (request, key) => sendRequest(this, request, key),
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
    const name = file.name || t('participant.outbox.file_name');
    const refusal =
      file.size > FILE_MAX_BYTES
        ? t('participant.outbox.file_too_big')
        : !navigator.onLine
          ? t('participant.outbox.file_offline')
          : null;
    if (refusal) {
      this.hooks.refused(t('participant.outbox.file_not_sent', { name, reason: refusal }));
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
            t('participant.outbox.file_not_sent', {
              name,
              reason: err instanceof ApiError ? reasonOf(err) : t('participant.outbox.file_unreachable'),
            }),
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
  wroteOnCard(kind: 'items', cardId: string, written: Item): void;
  wroteOnCard(kind: 'attachments', cardId: string, written: Attachment): void;
  wroteOnCard(kind: 'items' | 'attachments', cardId: string, written: { id: string }): void {
    const lists = this[kind] as Map<string, Array<{ id: string }>>;
    if (lists.has(cardId)) applyToCardList(lists, cardId, written);
    else this.readCardList(kind, cardId);
  }

  private readVotes(cardIds: string[]): Promise<void> {
    return readOwnVotes(this.api, this.workshopId, this.me, cardIds, this.votes, READ_AT_ONCE);
  }

  /** The live events that change what the page keeps beside the SDK's state. */
  private follow(): void {
    const { live, me } = this;
    live.on('workshop:event', ({ action, change }) => {
      const rating = change?.rating as
        { id: string; value: number; user_id: string; card_id: string; criterium_id: string } | undefined;
      if (followVote(this.votes, me, action, change)) {
        this.hooks.changed();
        return;
      }
      if ((action === 'addRating' || action === 'updateRating') && rating?.user_id === me)
        this.ratings.set(ratingKey(rating.card_id, rating.criterium_id), rating);
      else if (action === 'removeRating' && rating) this.ratings.delete(ratingKey(rating.card_id, rating.criterium_id));
      else if (action === 'removeRatings') this.ratings.clear();
      else if (!followCardLists(this, action, change)) {
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
    this.hooks.refused(t('participant.outbox.not_sent', { label: item.label, reason: reasonOf(error) }));
  }
}

/** Whether the person wrote it (a card, a comment); one whose author is hidden from them (`user_id: null`) is someone else's. */
export function isMine(written: { user_id: string | null }, me: string): boolean {
  return written.user_id !== null && written.user_id === me;
}

/** The card a label names, short enough for a line. */
export function named(card: Card): string {
  return card.title.length > 60 ? `${card.title.slice(0, 59)}…` : card.title;
}
