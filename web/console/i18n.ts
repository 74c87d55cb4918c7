/*
 * The console's language (docs/i18n.md#which-language): the page comes in the request's language
 * (the server cannot tell who asks for it), and moves to the signed-in account's `locale` before
 * any of the account's views is drawn, and again whenever the account's locale changes. A console
 * asked for in the pseudo-locale by name (`Accept-Language: en-XA`) stays in it.
 *
 * Views say their words with `t` (and `rich` for a sentence holding an element): both read
 * `language`, so every view drawn with them is drawn again when it changes.
 */
import { signal } from '@preact/signals';
import type { MessageId, MessageValues, ValuesArgs } from 'i18n-messages';
import type { ComponentChildren } from 'preact';
import { messageFiles, pageLanguage, t as say, useLanguage } from '../shared/i18n';

const PAGE = 'console';
/** The pseudo-locale (src/i18n/catalog.ts): never an account's locale, kept when asked for. */
const PSEUDO_LANGUAGE = 'en-XA';

/** The language the console shows; empty until its messages are loaded. */
export const language = signal('');

/** Switches one after the other (the page's own language first), so the last one asked for is the one shown. */
let switching: Promise<boolean> = Promise.resolve(true);

/** Loads the messages of the language the page was served in (preloaded with it), before the first view. */
export function startLanguage(): Promise<boolean> {
  switching = switching.then(async () => {
    try {
      await useLanguage(PAGE, document.documentElement.lang);
    } catch {
      // Without its messages the page shows their ids: visible, and no worse than not starting.
    }
    shown();
    return true;
  });
  return switching;
}

/**
 * Moves the console to the account's `locale`, unless it shows it already, or the pseudo-locale,
 * or has no messages in it. Resolves once its words are there: true, or false when its file could
 * not be had (offline), the console keeping the language it has.
 */
export function followLocale(locale: string): Promise<boolean> {
  switching = switching.then(async () => {
    if (locale === pageLanguage() || pageLanguage() === PSEUDO_LANGUAGE || !messageFiles()[locale]) return true;
    try {
      await useLanguage(PAGE, locale);
    } catch {
      return false;
    }
    shown();
    return true;
  });
  return switching;
}

/** The language now loaded becomes the one views are drawn in; the tab's title says it too. */
function shown(): void {
  document.title = say('console.title');
  language.value = pageLanguage();
}

/** The languages an account may choose, each in its own words (the page's `languages` meta). */
export function languageNames(): Record<string, string> {
  try {
    return JSON.parse(document.querySelector<HTMLMetaElement>('meta[name="languages"]')?.content ?? '{}') as Record<
      string,
      string
    >;
  } catch {
    return {};
  }
}

/** A message in the console's language (web/shared/i18n.ts), drawn again when the language changes. */
export function t<I extends MessageId>(id: I, ...values: ValuesArgs<I>): string {
  void language.value;
  return say(id, ...values);
}

type Values<I extends MessageId> = NonNullable<MessageValues[I]>;
/** A message's values where each of its tags (`<link>…</link>`) is drawn by a function of the words it wraps. */
type RichValues<I extends MessageId> = {
  [K in keyof Values<I>]: Values<I>[K] extends (chunks: string[]) => string
    ? (words: string) => ComponentChildren
    : Values<I>[K];
};

const OPEN = '\uE000';
const MIDDLE = '\uE001';
const CLOSE = '\uE002';

/**
 * A sentence holding elements (a link, an address in bold): its words as text, each tag's words
 * drawn by its function in the place the language puts it, so no sentence is glued from pieces.
 */
export function rich<I extends MessageId>(id: I, values: RichValues<I>): ComponentChildren[] {
  const draw: ((words: string) => ComponentChildren)[] = [];
  const marked = Object.fromEntries(
    Object.entries(values as Record<string, unknown>).map(([name, value]) => {
      if (typeof value !== 'function') return [name, value];
      const at = draw.push(value as (words: string) => ComponentChildren) - 1;
      return [name, (chunks: string[]) => `${OPEN}${at}${MIDDLE}${chunks.join('')}${CLOSE}`];
    }),
  );
  const pieces = (t as (id: I, values: unknown) => string)(id, marked).split(
    new RegExp(`${OPEN}(\\d+)${MIDDLE}([^${CLOSE}]*)${CLOSE}`),
  );
  const children: ComponentChildren[] = [];
  for (let at = 0; at < pieces.length; at += 3) {
    if (pieces[at]) children.push(pieces[at]);
    if (at + 2 < pieces.length) children.push(draw[Number(pieces[at + 1])]!(pieces[at + 2]!));
  }
  return children;
}
