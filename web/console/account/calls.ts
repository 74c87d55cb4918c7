/*
 * What the Account page's sections share: the routes of an account's end (its data export, the
 * deletion's preview and the deletion itself, docs/api.md#an-accounts-life), called with the
 * console's token where the SDK's typed client has no path for them (or, for removing the avatar,
 * no empty body), and a refusal said in the page's own words.
 */
import { ApiError } from 'workshop-sdk';
import { api, InputProblem } from '../api';

/**
 * Calls `path` of the service with the signed-in person's token; a refusal throws the SDK's
 * `ApiError`, as the typed client does. Resolves with the response, to read as it needs (JSON, a
 * ZIP file).
 */
export async function send(method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Response> {
  const headers = new Headers();
  if (api.token) headers.set('authorization', `Bearer ${api.token}`);
  if (body !== undefined) headers.set('content-type', 'application/json');
  const response = await fetch(new URL(path, api.baseUrl), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const error: unknown = await response.json().catch(() => null);
    throw ApiError.fromResponse(response, error);
  }
  return response;
}

/**
 * A refusal whose code has words of its own here (`invalid_credentials` → "That password is
 * wrong…") turned into those words, marking `field` when one is given; any other error as it was.
 */
export function inWords(err: unknown, words: Record<string, string | [string, string]>): unknown {
  if (!(err instanceof ApiError)) return err;
  const said = words[err.code];
  if (said === undefined) return err;
  return typeof said === 'string' ? new InputProblem(said) : new InputProblem(said[0], said[1]);
}

/** "1 session", "3 sessions". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
