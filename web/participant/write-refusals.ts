import { ApiError } from 'workshop-sdk';
import { t } from '../shared/i18n';

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
      return t('participant.refusal.vote_limit');
    case 'forbidden':
      return t('participant.refusal.forbidden');
    case 'workshop_archived':
      return t('participant.refusal.archived');
    case 'not_found':
      return t('participant.refusal.gone');
    case 'invalid_request':
      return error.details[0]?.message ?? error.message;
    case 'upload_quota_exceeded':
      return t('participant.refusal.upload_quota', { retry: tryAgainIn(error.retryAfter) });
    case 'workshop_storage_full':
      return t('participant.refusal.storage_full');
    default:
      return error.message;
  }
}

/** When a file fits again, in the rough words a person plans by. */
function tryAgainIn(seconds: number | null): string {
  if (seconds === null) return t('participant.refusal.retry_tomorrow');
  if (seconds < 90) return t('participant.refusal.retry_minutes', { minutes: 1 });
  if (seconds < 90 * 60) return t('participant.refusal.retry_minutes', { minutes: Math.round(seconds / 60) });
  return t('participant.refusal.retry_hours', { hours: Math.round(seconds / 3600) });
}
