/*
 * How the console lends its token to the live screen it opens for the projector
 * (docs/pages.md#signing-in-on-the-screen), without the address. The console opens the screen's tab
 * itself (`window.open`, keeping the handle); the new tab asks the window that opened it, and the
 * console answers that tab only, once. Both sides check that the other is this origin and the very
 * window they expect, so no page elsewhere can hand the screen a token (a link's `#token=…` could
 * sign a projector in as someone else), nor ask the console for its own.
 *
 * Why not a one-time value in the address: the token would still have to cross between the tabs,
 * through storage both can read, and be cleaned up when the new tab never loads; here it goes from
 * one page to the other and nowhere else, never in an address, the history or storage on the way.
 */

const ASK = 'workshop-screen:borrow-token';
const LEND = 'workshop-screen:lent-token';

/** How long the console waits for the tab it opened to ask: time enough for a slow machine to load it. */
const ASK_WITHIN_MS = 60_000;
/** How long a screen waits for an answer from the page that opened it before offering its sign-in form. */
const ANSWER_WITHIN_MS = 3_000;

/**
 * Console side: answers the screen tab `screen` (just opened by `window.open`) with the token
 * `token()` gives at the time it asks, once; a signed-out console answers null.
 */
export function lendTokenTo(screen: Window, token: () => string | null): void {
  const answer = (event: MessageEvent) => {
    if (event.source !== screen || event.origin !== location.origin || !isMessage(event.data, ASK)) return;
    stop();
    screen.postMessage({ type: LEND, token: token() }, location.origin);
  };
  const stop = () => {
    clearTimeout(waiting);
    removeEventListener('message', answer);
  };
  const waiting = setTimeout(stop, ASK_WITHIN_MS);
  addEventListener('message', answer);
}

/**
 * Screen side: the token lent by the console that opened this tab, or null when no page of this
 * origin opened it (a link, a typed address, a page elsewhere) or none answers. Asked once per tab:
 * the tab then lets go of the page that opened it, so a reload never asks again.
 */
export function borrowToken(): Promise<string | null> {
  const opener = window.opener as Window | null;
  if (!opener || !sameOrigin(opener)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const finish = (token: string | null) => {
      clearTimeout(waiting);
      removeEventListener('message', receive);
      window.opener = null;
      resolve(token);
    };
    const receive = (event: MessageEvent) => {
      if (event.source !== opener || event.origin !== location.origin || !isMessage(event.data, LEND)) return;
      const { token } = event.data as { token?: unknown };
      finish(typeof token === 'string' && token !== '' ? token : null);
    };
    const waiting = setTimeout(() => finish(null), ANSWER_WITHIN_MS);
    addEventListener('message', receive);
    opener.postMessage({ type: ASK }, location.origin);
  });
}

/** Whether `other` shows a page of this origin (reading another origin's location throws). */
function sameOrigin(other: Window): boolean {
  try {
    return other.location.origin === location.origin;
  } catch {
    return false;
  }
}

function isMessage(data: unknown, type: string): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === type;
}
