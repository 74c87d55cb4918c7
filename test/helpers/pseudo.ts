import type { Page } from 'playwright-core';

/*
 * The pseudo-locale `en-XA` (docs/i18n.md#the-pseudo-locale) accents every letter of the
 * catalogs' words: a plain letter on a page shown in it is a word that does not come from them.
 */

/**
 * The visible texts that are not the catalogs' in the pseudo-locale, which accents every letter:
 * a text node with a plain ASCII letter in it, once `peoples` (names, titles, addresses, dates
 * written by `Intl`) are taken out; and any label or title given to an element not marked ⟦ ⟧.
 * `except`, a CSS selector, leaves out a part of the page whose words have not moved yet.
 */
export function unmarkedTexts(page: Page, peoples: string[], except?: string): Promise<string[]> {
  return page.evaluate(
    ({ peoples, except }) => {
      const found = new Set<string>();
      // The longest first, so a name inside a longer one ("Retro" in "Retrospective") leaves none of it.
      const longestFirst = [...peoples].sort((a, b) => b.length - a.length);
      const plain = (text: string) =>
        /[A-Za-z]/.test(longestFirst.reduce((left, words) => left.split(words).join(''), text));
      const left = (element: Element) => except !== undefined && element.closest(except) !== null;
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent!.trim();
        const parent = node.parentElement!;
        const visible = parent.checkVisibility() || parent.closest('.visually-hidden, option');
        if (text && visible && !parent.closest('noscript') && !left(parent) && plain(text)) found.add(text);
      }
      for (const element of Array.from(document.querySelectorAll('[aria-label], [title], [placeholder]'))) {
        if (left(element)) continue;
        for (const name of ['aria-label', 'title', 'placeholder']) {
          const value = element.getAttribute(name);
          if (value && !/^⟦[\s\S]*⟧$/.test(value) && plain(value)) found.add(`${name}: ${value}`);
        }
      }
      if (!/^⟦.*⟧$/.test(document.title)) found.add(`title: ${document.title}`);
      return [...found];
    },
    { peoples, except },
  );
}
