/*
 * Where the screen keeps its bearer token: in this tab's session storage only (gone with the tab,
 * never sent by the browser on its own as a cookie would be). It comes from the screen's own sign-in
 * form, or is lent by the console that opened this tab (../shared/screen-loan.ts), never from the
 * address: a link's `#token=…` is ignored and taken out of the address bar, so nobody can sign a
 * screen in as someone else with a link, nor replace the token of a screen already signed in.
 * See docs/pages.md#signing-in-on-the-screen.
 */
import { borrowToken } from '../shared/screen-loan';

const KEY = 'workshop-screen-token';
/** Set while the token in use is the console's, lent to the projector. */
const LENT_KEY = 'workshop-screen-token-lent';
/** Where storage is refused (some private modes), the token lives as long as the page. */
let inMemory: string | null = null;
let lentInMemory = false;

/** The token to open the screen with: the console's, when it just opened this tab, else the one kept here. */
export async function takeToken(): Promise<string | null> {
  if (new URLSearchParams(location.hash.slice(1)).has('token')) {
    history.replaceState(null, '', location.pathname + location.search);
  }
  const lent = await borrowToken();
  if (lent) {
    keepToken(lent);
    lentInMemory = true;
    try {
      sessionStorage.setItem(LENT_KEY, '1');
    } catch {
      // Known in memory only.
    }
    return lent;
  }
  try {
    return sessionStorage.getItem(KEY) ?? inMemory;
  } catch {
    return inMemory;
  }
}

/**
 * Whether the token was lent by the console, which goes on using it: the screen's sign-out then
 * only forgets it here, and a revocation would sign the console out too.
 */
export function tokenIsLent(): boolean {
  try {
    return sessionStorage.getItem(LENT_KEY) === '1' || lentInMemory;
  } catch {
    return lentInMemory;
  }
}

/** Keeps a token the screen got from its own sign-in form (it is the screen's to revoke). */
export function keepToken(token: string): void {
  inMemory = token;
  lentInMemory = false;
  try {
    sessionStorage.setItem(KEY, token);
    sessionStorage.removeItem(LENT_KEY);
  } catch {
    // Kept in memory only.
  }
}

export function forgetToken(): void {
  inMemory = null;
  lentInMemory = false;
  try {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(LENT_KEY);
  } catch {
    // Nothing was stored.
  }
}
