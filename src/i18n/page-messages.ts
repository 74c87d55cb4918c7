import { PSEUDO_LANGUAGE } from './catalog';
import type { CompiledMessage, Messages } from './messages';

/*
 * A page's messages in one language, as the module the page imports (`web/shared/i18n.ts` reads
 * it): only the ids of the page's namespaces, each parsed already (plain text stays a string), and
 * every one present, a language's missing ones in English.
 */

/** What a page's messages module exports by default. */
export interface PageMessages {
  tag: string;
  dir: 'ltr' | 'rtl';
  /** The locale `Intl` formats numbers and dates with (`ar-u-nu-latn`). */
  intl: string;
  messages: Record<string, CompiledMessage>;
}

/** The languages a page is built in: every catalog's, and the pseudo-locale. */
export function pageLanguages(messages: Messages): string[] {
  return [...messages.languages, PSEUDO_LANGUAGE];
}

export function pageMessages(messages: Messages, tag: string, namespaces: readonly string[]): PageMessages {
  const ids = messages.ids.filter((id) => namespaces.some((namespace) => id.startsWith(`${namespace}.`)));
  return {
    tag,
    dir: messages.meta(tag).dir,
    intl: messages.intlLocale(tag),
    messages: Object.fromEntries(ids.map((id) => [id, messages.compiled(tag, id)])),
  };
}

export function pageMessagesModule(messages: Messages, tag: string, namespaces: readonly string[]): string {
  return `export default ${JSON.stringify(pageMessages(messages, tag, namespaces))};\n`;
}
