import { ApiError } from 'workshop-sdk';
import { t } from '../shared/i18n';

/*
 * What the page's own forms (joining, creating an account) share: a refusal said in words, and a
 * field marked as the one that is wrong.
 */

/**
 * What a refused request says to the person: `byCode` for the codes the form knows, then the
 * refusals every form can meet, then the server's own message.
 */
export function refusalText(err: unknown, byCode: Record<string, string>, offline: string): string {
  if (!(err instanceof ApiError) || err.status === 0) return offline;
  const known = byCode[err.code];
  if (known !== undefined) return known;
  if (err.code === 'rate_limited') return t('participant.forms.rate_limited', { seconds: err.retryAfter ?? 60 });
  if (err.code === 'invalid_request') return err.details[0]?.message ?? err.message;
  return err.message;
}

/** Marks `input` as the wrong field, says why in `status`, and puts the focus on it. */
export function markInvalid(status: HTMLElement, input: HTMLInputElement, message: string): void {
  input.setAttribute('aria-invalid', 'true');
  status.textContent = message;
  input.focus();
}
