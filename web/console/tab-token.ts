/*
 * A mailed link's token (a confirmation, a password reset), kept for this tab once it is out of
 * the address bar: a reload, or a sign-in through the provider on the way, still finds it. Where
 * storage is refused (some private modes), it lives as long as the page.
 */

export interface TabToken {
  /** The token kept, or '' for none. */
  get(): string;
  /** Keeps `token`; '' forgets it. */
  set(token: string): void;
}

export function tabToken(key: string): TabToken {
  let inMemory = '';
  return {
    get() {
      try {
        return sessionStorage.getItem(key) ?? inMemory;
      } catch {
        return inMemory;
      }
    },
    set(token) {
      inMemory = token;
      try {
        if (token) sessionStorage.setItem(key, token);
        else sessionStorage.removeItem(key);
      } catch {
        // Kept in memory only.
      }
    },
  };
}
