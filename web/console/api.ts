/*
 * The console's one REST client, and the words it shows for a refusal. The token is the signed-in
 * facilitator's (session.ts sets it); every view calls the service through this client.
 */
import { ApiError, createClient } from 'workshop-sdk';
import { pageLanguage } from '../shared/i18n';
import { t } from './i18n';
import { sessionEnded, watchingFetch } from './session-end';

/**
 * Each call's 401 is noticed (session-end.ts): the console asks for the password at once. The
 * service's refusals come in the console's language, and an account made here takes it
 * (docs/i18n.md#which-language).
 */
export const api = createClient({ baseUrl: location.origin, fetch: watchingFetch, acceptLanguage: pageLanguage });

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

/**
 * The request members whose names do not read as words on their own, and those the console's forms
 * send; made when asked, in the language shown then.
 */
const fieldNames = (): Record<string, string> => ({
  emails: t('console.fields.emails'),
  email: t('console.fields.email'),
  content: t('console.fields.content'),
  new_password: t('console.fields.new_password'),
  current_password: t('console.fields.current_password'),
  password: t('console.fields.password'),
  name: t('console.fields.name'),
  title: t('console.fields.title'),
  description: t('console.fields.description'),
  url: t('console.fields.url'),
  events: t('console.fields.events'),
  role: t('console.fields.role'),
  scopes: t('console.fields.scopes'),
  expires_at: t('console.fields.expires_at'),
  avatar: t('console.fields.avatar'),
});

/**
 * "Title", "Vote limit" from a refusal's `path` ("steps.2.name" reads as "Name"); a member without
 * words in the catalogs reads as its name, in English.
 */
function fieldWords(path: string): string {
  const key =
    path
      .split('.')
      .filter((part) => !/^\d+$/.test(part))
      .at(-1) ?? '';
  const words = fieldNames()[key] ?? key.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * What to tell the person about a failed call, or that the service cannot be reached. A refusal
 * naming fields (docs/api.md#authentication-and-errors) says each field's message once, led by the
 * field unless the message names it already; its summary ("Invalid body: …") repeats them and is
 * left out.
 */
export function problemText(err: unknown): string {
  if (err instanceof InputProblem) return err.message;
  if (err instanceof ApiError) {
    if (err.code === 'unauthenticated' && sessionEnded.value) return t('console.problem.session_ended');
    if (err.details.length === 0) return err.message;
    const said = new Set<string>();
    for (const { path, message } of err.details) {
      const field = fieldWords(path);
      // "Passwords have…" names the field "Password": compared without its plural's ending.
      const stem = field.toLowerCase().slice(0, Math.max(4, field.length - 2));
      const named = !field || message.toLowerCase().includes(stem);
      said.add(named ? message : t('console.problem.field', { field, message }));
    }
    return [...said].join(' ');
  }
  return t('console.problem.unreachable');
}

/** The field a refusal names (`details[0].path`), to mark that input. */
export function problemField(err: unknown): string | null {
  if (err instanceof InputProblem) return err.field;
  return err instanceof ApiError ? (err.details[0]?.path ?? null) : null;
}
