import { ApiError, type Card, type WorkshopClient } from 'workshop-sdk';

/*
 * Who wrote the cards on the screen. Cards carry their author's id only; names and roles come from
 * the workshop's member list, which facilitators may read (the screen is theirs to show). Another
 * reader's screen names nobody, and does not ask for the list. A card written while the step hid
 * authors shows no name, even to a facilitator who may know it: the screen is what the whole room
 * sees.
 */

/** The least time between two readings of the member list (a guest joining is a new name). */
const READ_EVERY_MS = 2_000;

export class Authors {
  private names = new Map<string, string>();
  private facilitators = new Set<string>();
  /** Ids already looked for: one that is not in the list (a member who left) is not asked for again and again. */
  private readonly asked = new Set<string>();
  private waiting = new Set<string>();
  /** The list may have changed (a member joined or changed role): read it again. */
  private stale = false;
  private reading = false;
  /** Whether this screen's reader acts as a facilitator: known from the member list's answer. */
  private reader: 'unknown' | 'facilitator' | 'other' = 'unknown';
  /** The reader's own id, once `GET /v1/user/me` answered. */
  private me: string | null = null;
  private lastRead = 0;

  constructor(
    private readonly api: WorkshopClient,
    private readonly workshopId: string,
    private readonly changed: () => void,
    /** Whether the reader acts as a facilitator as far as the live state knows: others are not asked about. */
    private readonly facilitating: () => boolean,
  ) {
    void this.readMe();
  }

  /** The name to show with `card`, or null: no name when the author is hidden, or not known (yet). */
  nameOf(card: Pick<Card, 'user_id' | 'author_visibility'>): string | null {
    if (card.user_id === null || card.author_visibility !== 'shown' || this.otherReader()) return null;
    this.lookUp(card.user_id);
    return this.names.get(card.user_id) ?? null;
  }

  /**
   * Whether `card` is known to be by someone who acts as a facilitator, whose cards every
   * participant sees while a step keeps the others' private. Until that is known, it is not.
   */
  byFacilitator(card: Pick<Card, 'user_id'>): boolean {
    const author = card.user_id;
    // The step the card was written under hid its author from the reader: on a facilitator's
    // screen (`hidden`) that may be any participant's card, so it is taken for one.
    if (author === null) return false;
    // A participant is sent nothing of other participants' cards while a step is private: any
    // card not their own is one the server shows every participant.
    if (this.otherReader()) return this.me !== null && author !== this.me;
    this.lookUp(author);
    // The reader's own cards count too: an organization's admin acts as a facilitator without
    // being in the member list. Other such admins the screen cannot tell (an organization's member
    // list carries no user ids), so their cards stay hidden.
    return this.reader === 'facilitator' && (this.facilitators.has(author) || author === this.me);
  }

  /** A member joined or changed role (or live events were missed): the list is read again. */
  membersChanged(): void {
    this.stale = true;
    this.asked.clear();
    this.read();
  }

  private lookUp(userId: string): void {
    if (this.names.has(userId) || this.asked.has(userId)) return;
    this.waiting.add(userId);
    this.read();
  }

  /** A reader who is no facilitator: told by the live state, or by the member list's refusal. */
  private otherReader(): boolean {
    return this.reader === 'other' || !this.facilitating();
  }

  private read(): void {
    if (this.otherReader() || this.reading || (this.waiting.size === 0 && !this.stale)) return;
    const wait = this.lastRead + READ_EVERY_MS - Date.now();
    this.reading = true;
    setTimeout(() => void this.readNow(), Math.max(0, wait));
  }

  private async readNow(): Promise<void> {
    const looked = this.waiting;
    const wasStale = this.stale;
    this.waiting = new Set();
    this.stale = false;
    this.lastRead = Date.now();
    try {
      const members = await this.api.get('/v1/workshops/{workshop_id}/user_roles', {
        params: { path: { workshop_id: this.workshopId } },
      });
      this.names = new Map(members.map((member) => [member.user_id, member.name]));
      this.facilitators = new Set(
        members.filter((member) => member.role === 'facilitator').map((member) => member.user_id),
      );
      this.reader = 'facilitator';
      for (const id of looked) this.asked.add(id);
    } catch (err) {
      // Not a facilitator: this screen names nobody. Anything else is asked again.
      if (err instanceof ApiError && [401, 403, 404].includes(err.status)) this.reader = 'other';
      else {
        for (const id of looked) this.waiting.add(id);
        this.stale ||= wasStale;
      }
    } finally {
      this.reading = false;
    }
    this.changed();
    this.read();
  }

  private async readMe(): Promise<void> {
    try {
      this.me = (await this.api.get('/v1/user/me')).id;
      this.changed();
    } catch (err) {
      // Until it is known, the reader's own cards are hidden like anyone's during a private step.
      if (!(err instanceof ApiError && err.status === 401)) setTimeout(() => void this.readMe(), READ_EVERY_MS);
    }
  }
}
