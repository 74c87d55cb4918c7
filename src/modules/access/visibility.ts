import type { Db } from '../../db/database';
import { currentPrefs, facilitatorIds } from './load';
import type { AuthorVisibility, CardsVisible, StepPrefs, WorkshopAccess, WorkshopRole } from '../../domain/permissions';
import { replaceRecords } from '../../domain/payload-records';

/*
 * What a reader may see of what others wrote (docs/api.md#private-writing-and-anonymous-authors),
 * in one place: private writing (the current step's `cards_visible`) and anonymous authors (the
 * level a card, comment, item or attachment was written under). REST answers, the event log, live
 * renderings and their replays, exports, mails and notifications all ask here.
 */

/** Who reads: a member in a role. A reader who wrote nothing (a generic one) has an id no author has. */
export interface Reader {
  role: WorkshopRole;
  userId: string;
}

/** Something written whose author may be hidden, as outputs carry it. */
export interface Authored {
  user_id: string | null;
  author_visibility: AuthorVisibility;
}

/** The level a card, comment or item written now is stored with: the current step's `authors`. */
export function authorVisibilityNow(access: Pick<WorkshopAccess, 'prefs'>): AuthorVisibility {
  return access.prefs.authors;
}

const HIDING: readonly AuthorVisibility[] = ['shown', 'hidden_from_participants', 'hidden'];

/** The level that hides the author from the most readers. */
export function mostHidden(levels: readonly AuthorVisibility[]): AuthorVisibility {
  return levels.reduce((most, level) => (HIDING.indexOf(level) > HIDING.indexOf(most) ? level : most), 'shown');
}

/**
 * Whether `reader` may see who wrote something: always at `shown`; the author always; facilitators
 * too at `hidden_from_participants`; nobody else.
 */
export function seesAuthor(reader: Reader, authorId: string | null, visibility: AuthorVisibility): boolean {
  if (visibility === 'shown' || (authorId !== null && authorId === reader.userId)) return true;
  return visibility === 'hidden_from_participants' && reader.role === 'facilitator';
}

/** The output as `reader` may see it: `user_id` null when its author is hidden from them. */
export function authorFor<T extends Authored>(reader: Reader, output: T): T {
  return seesAuthor(reader, output.user_id, output.author_visibility) ? output : { ...output, user_id: null };
}

/**
 * A payload (an event's change, a live event) as `reader` may see it: every card, comment or item
 * in it whose author is hidden from them has `user_id: null`. `hid` says whether any was, so the
 * event's actor can be left out too. Payloads without such objects come back as they are.
 */
export function authorsHiddenIn<T>(reader: Reader, payload: T): { value: T; hid: boolean } {
  let hid = false;
  const value = replaceRecords(payload, (record) => {
    if (typeof record.author_visibility !== 'string' || typeof record.user_id !== 'string') return null;
    if (seesAuthor(reader, record.user_id, record.author_visibility as AuthorVisibility)) return null;
    hid = true;
    return { ...record, user_id: null };
  });
  return { value, hid };
}

/** The authors of the cards, comments and items in a payload whose author is not `shown`. */
export function hiddenAuthorsOf(payload: unknown): Set<string> {
  const authors = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    if (
      typeof record.author_visibility === 'string' &&
      record.author_visibility !== 'shown' &&
      typeof record.user_id === 'string'
    )
      authors.add(record.user_id);
    Object.values(record).forEach(walk);
  };
  walk(payload);
  return authors;
}

/**
 * Whose cards a reader sees: `all`, or only these authors' (their own and the facilitators'), for
 * a participant while the current step has `cards_visible: own`.
 */
export type CardAuthors = 'all' | ReadonlySet<string>;

/**
 * What a change of the current step (another step, or the current one edited) does to whose cards
 * participants read: `{cards_visible: [before, after]}` when it moved (the reveal, or the cards
 * hidden again), for the logged change to carry, so its live rendering and every replay of it can
 * tell participants to read the cards again; nothing when it stayed.
 */
export function cardsVisibleMoved(
  before: Pick<StepPrefs, 'cards_visible'>,
  after: Pick<StepPrefs, 'cards_visible'>,
): { cards_visible?: [CardsVisible, CardsVisible] } {
  return before.cards_visible === after.cards_visible
    ? {}
    : { cards_visible: [before.cards_visible, after.cards_visible] };
}

/** Whether the current step keeps `reader` to their own cards and facilitators' (no query). */
export function writesPrivately(reader: Reader, prefs: Pick<StepPrefs, 'cards_visible'>): boolean {
  return reader.role === 'participant' && prefs.cards_visible === 'own';
}

/** `CardAuthors` for the caller: costs a query only while a private step keeps them to some cards. */
export async function visibleCardAuthors(db: Db, access: WorkshopAccess): Promise<CardAuthors> {
  if (!writesPrivately(access, access.prefs)) return 'all';
  const authors = await facilitatorIds(db, access.workshop.id);
  authors.add(access.userId);
  return authors;
}

/** Whether a card by `cardUserId` is among those `authors` lets the reader see. */
export function seesCardBy(authors: CardAuthors, cardUserId: string | null): boolean {
  return authors === 'all' || (cardUserId !== null && authors.has(cardUserId));
}

/**
 * The heart of private writing: whether, under `prefs`, a card by `cardUserId` is hidden from the
 * participants other than its author (the step is private and the author no facilitator).
 */
async function hiddenFromOtherParticipants(
  db: Db,
  workshopId: string,
  prefs: Pick<StepPrefs, 'cards_visible'>,
  cardUserId: string | null,
  memo: VisibilityMemo,
): Promise<boolean> {
  // A deleted account's card (no author any more) was nobody's who facilitates now.
  if (prefs.cards_visible !== 'own') return false;
  return cardUserId === null || !(await memo.facilitators(db, workshopId)).has(cardUserId);
}

/**
 * Whether the caller may see a card by `cardUserId` now: a query only for another participant's
 * card under a private step, once per `memo` (pass one when asking about several cards).
 */
export async function seesCard(
  db: Db,
  access: WorkshopAccess,
  cardUserId: string | null,
  memo = new VisibilityMemo(),
): Promise<boolean> {
  if (cardUserId === access.userId || access.role !== 'participant') return true;
  return !(await hiddenFromOtherParticipants(db, access.workshop.id, access.prefs, cardUserId, memo));
}

/** The level a generic reader of `role` stands at: one who wrote nothing, so sees only what their role may. */
export function readerWhoWroteNothing(role: WorkshopRole): Reader {
  return { role, userId: '' };
}

/**
 * The authors, among `authorIds`, whose cards the current step hides from other participants:
 * under `cards_visible: own`, every author who is not a facilitator. Empty otherwise, at no cost.
 */
export async function privateAuthorsAmong(
  db: Db,
  access: WorkshopAccess,
  authorIds: Iterable<string | null>,
  memo = new VisibilityMemo(),
): Promise<Set<string | null>> {
  const hidden = new Set<string | null>();
  for (const id of new Set(authorIds))
    if (await hiddenFromOtherParticipants(db, access.workshop.id, access.prefs, id, memo)) hidden.add(id);
  return hidden;
}

/**
 * For renderings made once for many readers (live events and their replays): whether the current
 * step hides a card by `cardUserId` (and everything about it) from participants other than its
 * author, that is, the step is private and the author is not a facilitator. Facilitators see every
 * card. Reads are kept per workshop in `memo`, which lives as long as one broadcast or one replay.
 */
export async function cardHiddenFromOthers(
  db: Db,
  workshopId: string,
  cardUserId: string | null,
  memo: VisibilityMemo,
): Promise<boolean> {
  return hiddenFromOtherParticipants(db, workshopId, await memo.prefs(db, workshopId), cardUserId, memo);
}

/** The current prefs and facilitators of workshops, read once per broadcast or replay. */
export class VisibilityMemo {
  private readonly prefsByWorkshop = new Map<string, Promise<StepPrefs>>();
  private readonly facilitatorsByWorkshop = new Map<string, Promise<Set<string>>>();

  prefs(db: Db, workshopId: string): Promise<StepPrefs> {
    let found = this.prefsByWorkshop.get(workshopId);
    if (!found) this.prefsByWorkshop.set(workshopId, (found = currentPrefs(db, workshopId)));
    return found;
  }

  facilitators(db: Db, workshopId: string): Promise<Set<string>> {
    let found = this.facilitatorsByWorkshop.get(workshopId);
    if (!found) this.facilitatorsByWorkshop.set(workshopId, (found = facilitatorIds(db, workshopId)));
    return found;
  }
}
