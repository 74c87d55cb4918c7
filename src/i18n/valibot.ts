import * as v from 'valibot';
import { SOURCE_LANGUAGE } from './catalog';
import { t, type MessageId } from './messages';
import type { ValuesArgs } from './message-types';

/*
 * Valibot's words in the request's language (docs/i18n.md#which-language). A schema's own message
 * is `said(id, values)`, formatted when the issue is raised in the language the parse was given
 * (`lang` of its config). Valibot's built-in messages are catalog messages too, registered per
 * language as its global message; English is left to valibot, whose words the catalog's English
 * repeats, so English answers stay what they always were.
 */

type Issue = v.BaseIssue<unknown>;

/** A schema's message from the catalogs, said in the language of the parse (English without one). */
export function said<I extends MessageId>(id: I, ...values: ValuesArgs<I>): (issue: { lang?: string }) => string {
  return (issue) => t(issue.lang ?? SOURCE_LANGUAGE, id, ...values);
}

const count = (issue: Issue) => Number(issue.received);
const bound = (issue: Issue) => Number(issue.requirement);

/** Valibot's built-in issues, by their type, as catalog messages. */
function builtIn(lang: string, issue: Issue): string {
  const { expected, received } = issue;
  switch (issue.type) {
    case 'min_length':
      return t(lang, 'error.validation.min_length', { requirement: bound(issue), received: count(issue) });
    case 'max_length':
      return t(lang, 'error.validation.max_length', { requirement: bound(issue), received: count(issue) });
    case 'min_value':
      return t(lang, 'error.validation.min_value', { requirement: bound(issue), received });
    case 'max_value':
      return t(lang, 'error.validation.max_value', { requirement: bound(issue), received });
    case 'gt_value':
      return t(lang, 'error.validation.gt_value', { requirement: bound(issue), received });
    case 'regex':
      return t(lang, 'error.validation.regex', { expected: expected ?? '', received });
    case 'email':
      return t(lang, 'error.validation.email', { received });
    case 'url':
      return t(lang, 'error.validation.url', { received });
    case 'integer':
      return t(lang, 'error.validation.integer', { received });
    case 'finite':
      return t(lang, 'error.validation.finite', { received });
    case 'iso_timestamp':
      return t(lang, 'error.validation.timestamp', { received });
  }
  if (issue.kind === 'schema') {
    // A strict object's unknown member: valibot expects `never` there.
    if (expected === 'never') return t(lang, 'error.validation.unknown_key', { received });
    return t(lang, 'error.validation.type', { expected: expected ?? '', received });
  }
  return t(lang, 'error.validation.input', { received });
}

const spoken = new Set<string>([SOURCE_LANGUAGE]);

/**
 * `lang`, once valibot has its built-in messages in it: the language to hand a parse's config.
 * Registered on first use, one global message per language, the same for every app a process starts.
 */
export function valibotLanguage(lang: string): string {
  if (!spoken.has(lang)) {
    v.setGlobalMessage((issue) => builtIn(lang, issue), lang);
    spoken.add(lang);
  }
  return lang;
}
