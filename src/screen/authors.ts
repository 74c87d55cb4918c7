import { ApiError, type Card, type WorkshopClient } from '../../client-sdk/src/index';

/*
 * The names under the cards on the screen. Cards carry their author's id only; the names come from
 * the workshop's member list, which facilitators may read (the screen is theirs to show). Another
 * reader's screen names nobody. A card written while the step hid authors shows no name, even to a
 * facilitator who may know it: the screen is what the whole room sees.
 */

/** The least time between two readings of the member list (a guest joining is a new name). */
const READ_EVERY_MS = 2_000;

export class AuthorNames {
  private readonly names = new Map<string, string>();
  /** Ids already looked for: one that is not in the list (a member who left) is not asked for again and again. */
  private readonly asked = new Set<string>();
  private waiting = new Set<string>();
  private reading = false;
  private refused = false;
  private lastRead = 0;

  constructor(
    private readonly api: WorkshopClient,
    private readonly workshopId: string,
    private readonly changed: () => void,
  ) {}

  /** The name to show with `card`, or null: no name when the author is hidden, or not known (yet). */
  of(card: Pick<Card, 'user_id' | 'author_visibility'>): string | null {
    if (card.user_id === null || card.author_visibility !== 'shown' || this.refused) return null;
    const name = this.names.get(card.user_id);
    if (name === undefined && !this.asked.has(card.user_id)) {
      this.waiting.add(card.user_id);
      this.read();
    }
    return name ?? null;
  }

  private read(): void {
    if (this.reading || this.refused || this.waiting.size === 0) return;
    const wait = this.lastRead + READ_EVERY_MS - Date.now();
    this.reading = true;
    setTimeout(() => void this.readNow(), Math.max(0, wait));
  }

  private async readNow(): Promise<void> {
    const looked = this.waiting;
    this.waiting = new Set();
    this.lastRead = Date.now();
    try {
      const members = await this.api.get('/v1/workshops/{workshop_id}/user_roles', { params: { path: { workshop_id: this.workshopId } } });
      for (const member of members) this.names.set(member.user_id, member.name);
      for (const id of looked) this.asked.add(id);
      this.changed();
    } catch (err) {
      // Not a facilitator: this screen names nobody. Anything else is asked again at the next card.
      if (err instanceof ApiError && [401, 403, 404].includes(err.status)) this.refused = true;
      else for (const id of looked) this.waiting.add(id);
    } finally {
      this.reading = false;
    }
    if (this.waiting.size > 0) this.read();
  }
}
