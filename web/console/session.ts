/*
 * Who is signed in. The token is kept in this origin's local storage (the console's only), so a
 * new tab or tomorrow's visit stays signed in; signing out revokes it on the server
 * (`POST /v1/auth/logout`) and forgets it here. See docs/pages.md#the-console.
 */
import { signal } from '@preact/signals';
import { ApiError, type User } from 'workshop-sdk';
import { api } from './api';

const KEY = 'workshop-console-token';
/** Where storage is refused (some private modes), the token lives as long as the page. */
let inMemory: string | null = null;

function storedToken(): string | null {
  try {
    return localStorage.getItem(KEY) ?? inMemory;
  } catch {
    return inMemory;
  }
}

function storeToken(token: string | null): void {
  inMemory = token;
  try {
    if (token === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, token);
  } catch {
    // Kept in memory only.
  }
}

/** The signed-in account; null when signed out, undefined until the stored token has been checked. */
export const me = signal<User | null | undefined>(undefined);

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

/** Revokes the token on the server, then forgets it here whatever the answer. */
export async function signOut(): Promise<void> {
  try {
    await api.post('/v1/auth/logout');
  } catch {
    // Forgotten here all the same: a token the server still holds ends on its own.
  }
  forget();
}

/** The server ended the session (401 on a call): the console starts over signed out. */
export function forget(): void {
  storeToken(null);
  api.setToken(null);
  me.value = null;
}
