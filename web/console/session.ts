/*
 * Who is signed in. The token is kept in this origin's local storage (the console's only), so a
 * new tab or tomorrow's visit stays signed in; signing out revokes it on the server
 * (`POST /v1/auth/logout`) and forgets it here. See docs/pages.md#the-console.
 */
import { effect, signal } from '@preact/signals';
import type { MessageId } from 'i18n-messages';
import { ApiError, type User } from 'workshop-sdk';
import { api } from './api';
import { followLocale } from './i18n';
import { draftsOf, dropAll } from './kept';
import { sessionEnded } from './session-end';

/** Where the token is kept (another tab's sign-in is heard through it, views/sign-in-again.tsx). */
export const TOKEN_KEY = 'workshop-console-token';
/** Where storage is refused (some private modes), the token lives as long as the page. */
let inMemory: string | null = null;

function storedToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? inMemory;
  } catch {
    return inMemory;
  }
}

function storeToken(token: string | null): void {
  inMemory = token;
  try {
    if (token === null) localStorage.removeItem(TOKEN_KEY);
    else localStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Kept in memory only.
  }
}

/**
 * What went wrong signing in through the provider (`#sign_in_error=…` from the callback,
 * docs/integrations.md#single-sign-on), as the message that says it; null when nothing did. Kept
 * as an id and said when drawn: the problem is read before the console's words are loaded.
 */
export const providerProblem = signal<ProviderProblem | null>(null);

const PROVIDER_PROBLEMS = {
  state: 'console.provider_problem.state',
  expired: 'console.provider_problem.expired',
  denied: 'console.provider_problem.denied',
  failed: 'console.provider_problem.failed',
  no_email: 'console.provider_problem.no_email',
  account_exists: 'console.provider_problem.account_exists',
  storage: 'console.provider_problem.storage',
} as const satisfies Record<string, MessageId>;
type ProviderProblem = (typeof PROVIDER_PROBLEMS)[keyof typeof PROVIDER_PROBLEMS];

/** The one-time value of the provider sign-in this tab started: in this tab's session storage only. */
const SIGN_IN_KEY = 'workshop-console-sign-in';

/**
 * Starts a sign-in through the provider in this tab, to come back to `returnTo`. The tab makes a
 * one-time value and keeps it; the server hands it back beside the token, and only a token that
 * comes with it is taken (below). Where the tab cannot keep it (storage refused), says so instead.
 */
export function startProviderSignIn(returnTo: string): void {
  const value = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join('');
  try {
    sessionStorage.setItem(SIGN_IN_KEY, value);
  } catch {
    providerProblem.value = PROVIDER_PROBLEMS.storage;
    return;
  }
  location.assign(`/v1/auth/oidc/start?${new URLSearchParams({ return_to: returnTo, client_state: value })}`);
}

/** The value kept by `startProviderSignIn`, forgotten as it is read: it serves one sign-in. */
function takeSignInValue(): string | null {
  try {
    const value = sessionStorage.getItem(SIGN_IN_KEY);
    sessionStorage.removeItem(SIGN_IN_KEY);
    return value;
  } catch {
    return null;
  }
}

/**
 * The end of a sign-in through the provider: the callback returns here with the token, or the
 * problem, in the fragment (never sent to a server, nor in a Referer), then taken out of the address
 * and of the history. The token is kept only beside the one-time value this tab made when it
 * started that sign-in; any other `#token=` (a link someone sent, another tab's sign-in) is
 * ignored, and whoever is signed in stays signed in (docs/pages.md#signing-in-and-the-workshops).
 */
export function takeProviderSignIn(): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  const problem = fragment.get('sign_in_error');
  if (token === null && problem === null) return;
  history.replaceState(history.state, '', location.pathname + location.search);
  const kept = takeSignInValue();
  if (token && kept !== null && fragment.get('client_state') === kept) storeToken(token);
  if (problem !== null)
    providerProblem.value = Object.hasOwn(PROVIDER_PROBLEMS, problem)
      ? PROVIDER_PROBLEMS[problem as keyof typeof PROVIDER_PROBLEMS]
      : PROVIDER_PROBLEMS.failed;
}

/** The signed-in account; null when signed out, undefined until the stored token has been checked. */
export const me = signal<User | null | undefined>(undefined);
// The drafts kept for this tab are the signed-in account's (kept.ts).
effect(() => draftsOf(me.value?.id ?? null));

/** Signs in with a token from signup or login: kept, and the account read. */
export async function signIn(token: string): Promise<void> {
  storeToken(token);
  api.setToken(token);
  await loadMe();
}

/** Counts the reads of the account, so an older answer arriving late never replaces a newer one. */
let reads = 0;

/** Reads the account of the stored token (at start, and after a change to it); a token the server no longer takes is forgotten. */
export async function loadMe(): Promise<void> {
  const token = storedToken();
  if (!token) {
    me.value = null;
    return;
  }
  api.setToken(token);
  const read = ++reads;
  try {
    const account = await api.get('/v1/user/me');
    // The account's views come in its language, never first in another (docs/i18n.md#which-language).
    await followLocale(account.locale);
    if (read === reads) me.value = account;
  } catch (err) {
    if (read !== reads) return;
    if (err instanceof ApiError && err.status === 401) {
      forget();
      return;
    }
    throw err;
  }
}

/**
 * Revokes the token on the server, then forgets it here whatever the answer, with the forms' drafts
 * this tab kept (kept.ts): whoever signs in here next does not find them.
 */
export async function signOut(): Promise<void> {
  dropAll();
  try {
    await api.post('/v1/auth/logout');
  } catch {
    // Forgotten here all the same: a token the server still holds ends on its own.
  }
  forget();
}

/** The server ended the session (401 on a call): the console starts over signed out. */
export function forget(): void {
  sessionEnded.value = false;
  storeToken(null);
  api.setToken(null);
  me.value = null;
}
