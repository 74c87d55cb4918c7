/*
 * The session ending under the console's feet: revoked (signed out elsewhere, a password
 * changed), expired. Any 401 from the API to a call made with a token, or the live connection
 * refused, says so here; the console then asks for the password over the page (views/sign-in-again.tsx)
 * and every open form keeps what was typed. See docs/pages.md#when-the-session-ends.
 */
import { signal } from '@preact/signals';

/** True from the moment the service refuses the console's token until someone signs in again. */
export const sessionEnded = signal(false);

/** Counts the sign-ins after an end: each opens the live connections again with the new token. */
export const signedInAgain = signal(0);

/**
 * The console's `fetch`: a call that carried a token answered `401 unauthenticated` ends the
 * session. A wrong password (`401 invalid_credentials`, when changing the address or the password)
 * does not.
 */
export async function watchingFetch(request: Request): Promise<Response> {
  const carried = request.headers.has('authorization');
  const response = await fetch(request);
  if (response.status === 401 && carried) {
    const answer = (await response
      .clone()
      .json()
      .catch(() => null)) as { error?: { code?: unknown } } | null;
    if (answer?.error?.code === 'unauthenticated') sessionEnded.value = true;
  }
  return response;
}
