import type { ChangeInput } from './events';

/** Collects what a write transaction changed; published only once the transaction commits. */
export interface ChangeRecorder {
  /**
   * Appends an event to the workshop's log and queues its broadcast. Events are numbered and
   * stored when the write's body is done, in the order recorded, in its transaction. The payload's
   * type follows the action (`domain/events.ts`).
   */
  record(input: ChangeInput): void;
  /** Creates a notification for each user (stored with the events) and queues its delivery. */
  notify(userIds: readonly string[], type: string, data: Record<string, unknown>): void;
  /** Runs after commit; skipped when the transaction rolls back. */
  afterCommit(fn: () => void): void;
  /**
   * Runs once the transaction has rolled back (say, to drop a Yjs document whose memory took a
   * change that was never stored); skipped when it commits.
   */
  onRollback(fn: () => void): void;
}
