/** Which card a feedback request is about, and who is asking. */
export interface CardRef {
  workshopId: string;
  cardId: string;
  userId: string;
}
