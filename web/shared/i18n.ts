import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import type { MessageId, ValuesArgs } from 'i18n-messages';
import { IntlMessageFormat } from 'intl-messageformat';

/*
 * The pages' side of the catalogs (docs/i18n.md#in-the-pages). A page loads the messages of one
 * language only: its own file (`messages-<tag>-<hash>.js`, built by src/pages/build.ts with the
 * page's namespaces, parsed already), which the HTML preloads for the language it was served in
 * and names with every other in its `messages` meta. FormatJS formats them without its parser
 * (the bundle leaves it out); `t` is typed by the ids of `locales/en.json`.
 */

/** What a page's messages file exports by default (src/i18n/page-messages.ts). */
interface PageMessages {
  tag: string;
  dir: 'ltr' | 'rtl';
  intl: string;
  messages: Record<string, string | MessageFormatElement[]>;
}

let current: PageMessages | undefined;
const formats = new Map<string, IntlMessageFormat>();

/** Each language's messages file by tag, as the page's `messages` meta names them. */
export function messageFiles(): Record<string, string> {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="messages"]');
  try {
    return meta ? (JSON.parse(meta.content) as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The language the page shows (`<html lang>`). */
export function pageLanguage(): string {
  return current?.tag ?? document.documentElement.lang;
}

/** The locale `Intl` formats the page's dates and numbers with (its catalog's `$meta.intl`, `ar-u-nu-latn`). */
export function pageIntl(): string {
  return current?.intl ?? document.documentElement.lang;
}

/**
 * Makes `tag` the page's language: loads its messages (once; the page's own are preloaded) and
 * sets `<html lang dir>`. Rejects when its file cannot be had (offline): the language stays.
 */
export async function useLanguage(page: string, tag: string): Promise<void> {
  const file = messageFiles()[tag];
  if (!file) throw new Error(`The page has no messages in ${tag}`);
  const url = new URL(`/${page}/assets/${file}`, location.origin).href;
  const loaded = (await import(url)) as { default: PageMessages };
  current = loaded.default;
  formats.clear();
  document.documentElement.lang = current.tag;
  document.documentElement.dir = current.dir;
}

/** A message of the page's language; its id when the messages are not loaded (a bug, visible as such). */
export function t<I extends MessageId>(id: I, ...values: ValuesArgs<I>): string {
  const message = current?.messages[id];
  if (message === undefined) return id;
  if (typeof message === 'string') return message;
  let format = formats.get(id);
  if (!format) {
    format = new IntlMessageFormat(message, current!.intl);
    formats.set(id, format);
  }
  return String(format.format(values[0] as Parameters<IntlMessageFormat['format']>[0]));
}
