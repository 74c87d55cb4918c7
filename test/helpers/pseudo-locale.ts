import type { Page } from 'playwright-core';

/**
 * The visible texts that are not the catalogs' in the pseudo-locale (docs/i18n.md#the-pseudo-locale),
 * which accents every letter: a text node with a plain ASCII letter in it, once `peoples` (names,
 * titles, addresses, dates written by `Intl`) are taken out; and any label, title or placeholder
 * given to an element not marked ⟦ ⟧. `within` (a CSS selector) looks only there, for a view whose
 * frame is not moved yet; the page's title is checked only when the whole page is.
 */
export function unmarkedTexts(page: Page, peoples: string[], within?: string): Promise<string[]> {
  return page.evaluate(
    ({ peoples, within }) => {
      const found = new Set<string>();
      // The longest first, so a name inside a longer one ("Retro" in "Retrospective") leaves none of it.
      const longestFirst = [...peoples].sort((a, b) => b.length - a.length);
      const plain = (text: string) =>
        /[A-Za-z]/.test(longestFirst.reduce((left, words) => left.split(words).join(''), text));
      const roots = within ? Array.from(document.querySelectorAll(within)) : [document.body];
      for (const root of roots) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent!.trim();
          const parent = node.parentElement!;
          const visible = parent.checkVisibility() || parent.closest('.visually-hidden, option');
          if (text && visible && !parent.closest('noscript') && plain(text)) found.add(text);
        }
        const named = [root, ...Array.from(root.querySelectorAll('[aria-label], [title], [placeholder]'))];
        for (const element of named) {
          for (const name of ['aria-label', 'title', 'placeholder']) {
            const value = element.getAttribute(name);
            if (value && !/^⟦[\s\S]*⟧$/.test(value) && plain(value)) found.add(`${name}: ${value}`);
          }
        }
      }
      if (!within && !/^⟦.*⟧$/.test(document.title)) found.add(`title: ${document.title}`);
      return [...found];
    },
    { peoples, within },
  );
}
