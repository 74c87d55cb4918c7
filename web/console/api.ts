/*
 * The console's one REST client, and the words it shows for a refusal. The token is the signed-in
 * facilitator's (session.ts sets it); every view calls the service through this client.
 */
import { ApiError, createClient } from 'workshop-sdk';
import { sessionEnded, watchingFetch } from './session-end';

/** Each call's 401 is noticed (session-end.ts): the console asks for the password at once. */
export const api = createClient({ baseUrl: location.origin, fetch: watchingFetch });

/** The service's public address, handed over by the server in a `<meta>` (no inline script is allowed). */
export const PUBLIC_URL =
  document.querySelector<HTMLMetaElement>('meta[name="public-url"]')?.content || location.origin;

/**
 * Something the page itself finds wrong before it calls the service (a file not chosen yet, two
 * passwords that differ); `field` names the input to mark, as a refusal's `details[0].path` does.
 */
export class InputProblem extends Error {
  constructor(
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

/** What to tell the person about a failed call: the service's own message, or that it cannot be reached. */
export function problemText(err: unknown): string {
  if (err instanceof InputProblem) return err.message;
  if (err instanceof ApiError) {
    if (err.code === 'unauthenticated' && sessionEnded.value)
      return 'Your session has ended: sign in again, and what you typed is kept.';
    const detail = err.details[0];
    return detail && detail.message !== err.message ? `${err.message} ${detail.message}` : err.message;
  }
  return 'The server cannot be reached; try again in a moment.';
}

/** The field a refusal names (`details[0].path`), to mark that input. */
export function problemField(err: unknown): string | null {
  if (err instanceof InputProblem) return err.field;
  return err instanceof ApiError ? (err.details[0]?.path ?? null) : null;
}
