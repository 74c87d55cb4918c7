import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { LAPTOP, PHONE } from './console';

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

/**
 * The elements whose text is wider than their box (`scrollWidth` past `clientWidth`): words cut
 * off or running into what is beside them, as a longer language makes them. A box made to scroll
 * sideways (`overflow-x: auto` or `scroll`, a tab strip on a phone) is not counted, nor anything
 * hidden, nor a box of one pixel (words for screen readers only, `.visually-hidden`).
 */
export function textWiderThanItsBox(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const element of Array.from(document.body.querySelectorAll<HTMLElement>('*'))) {
      const ownText = Array.from(element.childNodes).some(
        (node) => node.nodeType === Node.TEXT_NODE && node.textContent!.trim() !== '',
      );
      if (!ownText || !element.checkVisibility() || element.clientWidth <= 1) continue;
      const style = getComputedStyle(element);
      if (style.display === 'inline' || ['auto', 'scroll'].includes(style.overflowX)) continue;
      if (element.scrollWidth > element.clientWidth + 1)
        found.push(
          `${element.tagName.toLowerCase()}.${element.className}: ${element.textContent!.trim().slice(0, 60)}`,
        );
    }
    return found;
  });
}

/**
 * No text wider than its box (`textWiderThanItsBox`) at a phone's width and at a laptop's; the
 * page is left at the size it had. `what` names the view in the failure.
 */
export async function expectNoTextCutOff(page: Page, what: string): Promise<void> {
  const before = page.viewportSize();
  for (const size of [PHONE, LAPTOP]) {
    await page.setViewportSize(size.viewport!);
    expect(await textWiderThanItsBox(page), `${what} at ${size.viewport!.width} px`).toEqual([]);
  }
  if (before) await page.setViewportSize(before);
}
