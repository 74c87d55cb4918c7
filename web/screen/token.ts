/*
 * Where the screen keeps its bearer token: in this tab's session storage only (gone with the tab,
 * never sent by the browser on its own as a cookie would be). A link may hand it over in the URL
 * fragment (`/screen/<id>#token=…`), which browsers never send to a server; it is taken out of the
 * address bar at once, so it does not stay in the history or show on a projected screen.
 */

const KEY = 'workshop-screen-token';
/** Where storage is refused (some private modes), the token lives as long as the page. */
let inMemory: string | null = null;

export function takeToken(): string | null {
  const handedOver = new URLSearchParams(location.hash.slice(1)).get('token');
  if (handedOver) {
    history.replaceState(null, '', location.pathname + location.search);
    keepToken(handedOver);
    return handedOver;
  }
  try {
    return sessionStorage.getItem(KEY) ?? inMemory;
  } catch {
    return inMemory;
  }
}

export function keepToken(token: string): void {
  inMemory = token;
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Kept in memory only.
  }
}

export function forgetToken(): void {
  inMemory = null;
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing was stored.
  }
}
