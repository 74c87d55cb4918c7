import { ApiError } from 'workshop-sdk';

/*
 * The server's refusals of the participant's writes: those that mean the write is done already,
 * and the reason said to the person for the others.
 */

/** A vote withdrawn or a card deleted already (by someone else, or an earlier attempt whose answer was lost) is gone as asked. */
export function gone(err: unknown): void {
  if (!(err instanceof ApiError && err.status === 404)) throw err;
}

/** Why the server refused a write, in words the person reads. */
export function reasonOf(error: ApiError): string {
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
