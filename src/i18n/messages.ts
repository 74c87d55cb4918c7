import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { fromPackageRoot } from '../lib/package-root';
import { PSEUDO_LANGUAGE, readCatalogs, SOURCE_LANGUAGE, type Catalog, type LanguageMeta } from './catalog';
import type { MessageId, ValuesArgs } from './message-types';
import { negotiateLanguage } from './negotiate';
import { pseudoMessage } from './pseudo';

export type { MessageId, MessageValues } from './message-types';

/*
 * The server's side of the catalogs (docs/i18n.md): `t(lang, id, values)` formats a message with
 * FormatJS's `IntlMessageFormat`, each (language, id) parsed and built once; a message a catalog
 * lacks yet (a namespace still being moved) is said in English. What is kept is data read from
 * the catalog files, the same for every app a process starts.
 */

/** A message ready to format: its plain text when it has no placeholder, else its parsed form. */
export type CompiledMessage = string | MessageFormatElement[];

/**
 * A message named for later formatting, in a language not known yet (an error's, formatted per
 * request). Only `msg` makes one, and it checks the values against the id; a union of every id's
 * shape is more than tsc can narrow once the catalogs hold about a thousand messages (TS2590).
 */
export interface Message {
  readonly id: MessageId;
  readonly values: Readonly<Record<string, unknown>> | undefined;
}

export function msg<I extends MessageId>(id: I, ...values: ValuesArgs<I>): Message {
  return { id, values: values[0] };
}

export interface Messages {
  /** The catalogs' languages, the source language first (the pseudo-locale is none of them). */
  readonly languages: readonly string[];
  /** Every message's id, as the source catalog has them. */
  readonly ids: readonly string[];
  /** The best language for an `Accept-Language` header, or undefined when none of its languages has a catalog. */
  negotiate(header: string | undefined): string | undefined;
  meta(lang: string): LanguageMeta;
  /** The locale `Intl` formats `lang`'s numbers and dates with: its catalog's `intl`, else its tag; English without a catalog. */
  intlLocale(lang: string): string;
  compiled(lang: string, id: string): CompiledMessage;
  format(lang: string, id: string, values?: Record<string, unknown>): string;
}

type FormatValues = Parameters<IntlMessageFormat['format']>[0];

/** How many distinct `Accept-Language` headers are remembered with their answer. */
const NEGOTIATED_KEPT = 500;

const plainText = (elements: MessageFormatElement[]): string | undefined =>
  elements.every((element) => element.type === TYPE.literal)
    ? elements.map((element) => (element as { value: string }).value).join('')
    : undefined;

/** The messages of the catalogs in `dir`. */
export function createMessages(dir: string): Messages {
  const catalogs = new Map<string, Catalog>(readCatalogs(dir).map((catalog) => [catalog.tag, catalog]));
  const found = catalogs.get(SOURCE_LANGUAGE);
  if (!found) throw new Error(`No ${SOURCE_LANGUAGE}.json in ${dir}: the source catalog is missing.`);
  const source: Catalog = found;
  const languages = [...catalogs.keys()];
  const offered = [...languages, PSEUDO_LANGUAGE];
  const negotiated = new Map<string, string | undefined>();
  const compiledCache = new Map<string, CompiledMessage>();
  const formatters = new Map<string, string | IntlMessageFormat>();

  const known = (lang: string) => (lang === PSEUDO_LANGUAGE || catalogs.has(lang) ? lang : SOURCE_LANGUAGE);
  const meta = (lang: string): LanguageMeta =>
    lang === PSEUDO_LANGUAGE ? { name: 'Pseudo (en-XA)', dir: 'ltr', intl: 'en' } : (catalogs.get(lang) ?? source).meta;

  const intlLocale = (lang: string) => meta(known(lang)).intl ?? known(lang);

  function compiled(lang: string, id: string): CompiledMessage {
    const language = known(lang);
    const key = `${language}\u0000${id}`;
    let message = compiledCache.get(key);
    if (message === undefined) {
      const text = catalogs.get(language)?.messages.get(id) ?? source.messages.get(id);
      if (text === undefined) throw new Error(`No message ${id} in ${SOURCE_LANGUAGE}.json`);
      const elements = language === PSEUDO_LANGUAGE ? pseudoMessage(parse(text)) : parse(text);
      message = plainText(elements) ?? elements;
      compiledCache.set(key, message);
    }
    return message;
  }

  return {
    languages,
    ids: [...source.messages.keys()],
    negotiate(header) {
      const key = header ?? '';
      if (negotiated.has(key)) return negotiated.get(key);
      const found = negotiateLanguage(header, offered);
      if (negotiated.size >= NEGOTIATED_KEPT) negotiated.clear();
      negotiated.set(key, found);
      return found;
    },
    meta,
    intlLocale,
    compiled,
    format(lang, id, values) {
      const key = `${known(lang)}\u0000${id}`;
      let formatter = formatters.get(key);
      if (formatter === undefined) {
        const message = compiled(lang, id);
        const language = known(lang);
        formatter = typeof message === 'string' ? message : new IntlMessageFormat(message, intlLocale(language));
        formatters.set(key, formatter);
      }
      return typeof formatter === 'string' ? formatter : String(formatter.format(values as FormatValues));
    },
  };
}

let packageMessages: Messages | undefined;

/** The service's own catalogs (`locales/` beside `package.json`), read on first use. */
export function appMessages(): Messages {
  return (packageMessages ??= createMessages(fromPackageRoot('locales')));
}

/** A message of the service's catalogs in `lang` (English when `lang` has no catalog). */
export function t<I extends MessageId>(lang: string, id: I, ...values: ValuesArgs<I>): string {
  return appMessages().format(lang, id, values[0]);
}

/** A `Message` made earlier, in `lang`. */
export function formatMessage(lang: string, message: Message): string {
  return appMessages().format(lang, message.id, message.values);
}

/** The writing direction of `lang`: `rtl` for Arabic. */
export function dir(lang: string): 'ltr' | 'rtl' {
  return appMessages().meta(lang).dir;
}
