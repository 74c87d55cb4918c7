/*
 * Where the screen keeps its bearer token: in this tab's session storage only (gone with the tab,
 * never sent by the browser on its own as a cookie would be). A link may hand it over in the URL
 * fragment (`/screen/<id>#token=…`), which browsers never send to a server; it is taken out of the
 * address bar at once, so it does not stay in the history or show on a projected screen.
 */

const KEY = 'workshop-screen-token';
/** Set while the token in use came in the address (the console's own, lent to the projector). */
const LENT_KEY = 'workshop-screen-token-lent';
/** Where storage is refused (some private modes), the token lives as long as the page. */
let inMemory: string | null = null;

export function takeToken(): string | null {
  const handedOver = new URLSearchParams(location.hash.slice(1)).get('token');
  if (handedOver) {
    history.replaceState(null, '', location.pathname + location.search);
    keepToken(handedOver);
    try {
      sessionStorage.setItem(LENT_KEY, '1');
    } catch {
      lentInMemory = true;
    }
    return handedOver;
  }
  try {
    return sessionStorage.getItem(KEY) ?? inMemory;
  } catch {
    return inMemory;
  }
}

let lentInMemory = false;

/**
 * Whether the token was lent through the address (by the console, which goes on using it): the
 * screen's sign-out then only forgets it here, and a revocation would sign the console out too.
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
