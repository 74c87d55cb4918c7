import type { Caller } from './permissions';

/** Which card a feedback request is about, and who is asking. */
export interface CardRef {
  workshopId: string;
  cardId: string;
  /** Who is asking: their id, and what single sign-on keeps their session out of. */
  caller: Caller;
}
