/**
 * Which workshop events to apply, by their `seq`: each change once, in order, with its gaps found.
 *
 * One change may arrive as several events sharing a `seq` (`workshop:updated` + `view:changed`),
 * so an event is told apart from a duplicate by its name and card within that `seq`. After a load
 * over REST every event of the loaded `seq` is already in the state (`complete`).
 */
export type Verdict = 'apply' | 'duplicate' | 'gap';

export class SequenceTracker {
  /** The highest `seq` applied (or loaded). */
  seq = 0;
  private complete = true;
  private seenAtSeq = new Set<string>();

  /** Starts again from a state loaded at `seq`. */
  loadedAt(seq: number): void {
    this.seq = seq;
    this.complete = true;
    this.seenAtSeq.clear();
  }

  /** Says what to do with an event, and counts it as applied when the answer is `apply`. */
  admit(seq: number, key: string): Verdict {
    if (seq > this.seq + 1) return 'gap';
    if (seq < this.seq) return 'duplicate';
    if (seq === this.seq) {
      if (this.complete || this.seenAtSeq.has(key)) return 'duplicate';
      this.seenAtSeq.add(key);
      return 'apply';
    }
    this.seq = seq;
    this.complete = false;
    this.seenAtSeq = new Set([key]);
    return 'apply';
  }

  /**
   * The `since_seq` to resume from. When the last change may have arrived only in part (a drop
   * between two of its events) it is asked for again; what already arrived is then a duplicate.
   */
  resumeFrom(): number {
    return this.complete ? this.seq : Math.max(0, this.seq - 1);
  }
}

/** What tells an event apart from the others of its change: its name and the card it is about. */
export function eventKey(event: string, payload: { card_id?: string; card?: { id?: string } }): string {
  return `${event}|${payload.card_id ?? payload.card?.id ?? ''}`;
}
