import type { Page } from 'playwright-core';

/*
 * What the console's language tests share (docs/i18n.md#the-pseudo-locale): the texts the
 * pseudo-locale leaves plain, and a day as the console writes it.
 */

/**
 * The visible texts that are not the catalogs' in the pseudo-locale, which accents every letter:
 * a text node with a plain ASCII letter in it, once `peoples` (names, titles, addresses, dates
 * written by `Intl`) are taken out; and any label or title given to an element not marked ⟦ ⟧.
 */
export function unmarkedTexts(page: Page, peoples: string[]): Promise<string[]> {
  return page.evaluate((peoples) => {
    const found = new Set<string>();
    // The longest first, so a name inside a longer one ("Retro" in "Retrospective") leaves none of it.
    const longestFirst = [...peoples].sort((a, b) => b.length - a.length);
    const plain = (text: string) =>
      /[A-Za-z]/.test(longestFirst.reduce((left, words) => left.split(words).join(''), text));
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent!.trim();
      const parent = node.parentElement!;
      const visible = parent.checkVisibility() || parent.closest('.visually-hidden, option');
      if (text && visible && !parent.closest('noscript') && plain(text)) found.add(text);
    }
    for (const element of Array.from(document.querySelectorAll('[aria-label], [title], [placeholder]'))) {
      for (const name of ['aria-label', 'title', 'placeholder']) {
        const value = element.getAttribute(name);
        if (value && !/^⟦[\s\S]*⟧$/.test(value) && plain(value)) found.add(`${name}: ${value}`);
      }
    }
    if (!/^⟦.*⟧$/.test(document.title)) found.add(`title: ${document.title}`);
    return [...found];
  }, peoples);
}

/** A day as the console writes it: `Intl` in the language's locale, in the account's time zone. */
export const dayIn = (locale: string, timeZone: string, iso: string) =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone }).format(new Date(iso));
