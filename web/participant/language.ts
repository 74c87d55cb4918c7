import type { MessageId, MessageValues } from 'i18n-messages';
import { messageFiles, pageLanguage, t, useLanguage } from '../shared/i18n';

/*
 * The participant page's language (docs/i18n.md#which-language): the one the person picked on
 * this phone (kept in local storage), else the one the server chose from the browser's
 * Accept-Language (the page's `<html lang>`).
 */

const PAGE = 'participant';
/** Where the person's pick is kept. */
const CHOICE = 'workshop-participant-language';

function chosen(): string | null {
  try {
    return localStorage.getItem(CHOICE);
  } catch {
    return null;
  }
}

function choose(tag: string): void {
  try {
    localStorage.setItem(CHOICE, tag);
  } catch {
    // Storage refused (a private window): the pick lasts until the page is left.
  }
}

/** Loads the page's language before its first words; the server's choice when the kept one cannot be had. */
export async function startLanguage(): Promise<void> {
  const kept = chosen();
  const served = document.documentElement.lang;
  if (kept && kept !== served && messageFiles()[kept]) {
    try {
      return await useLanguage(PAGE, kept);
    } catch {
      // Not cached and offline: the page's own language, preloaded with it.
    }
  }
  try {
    await useLanguage(PAGE, served);
  } catch {
    // Without its messages the page shows their ids: visible, and no worse than not starting.
  }
}

/** A message said without values: the frame's fixed words. */
type Unvalued = { [I in MessageId]: MessageValues[I] extends undefined ? I : never }[MessageId];

/**
 * The workshop view's fixed words (those src/pages/participant.ts writes, each naming its message
 * in `data-say` or `data-say-label`), said again in the page's language: the person may have
 * picked another than the one the server rendered.
 */
export function sayFrame(): void {
  for (const node of document.querySelectorAll<HTMLElement>('#workshop [data-say]'))
    node.textContent = t(node.dataset.say as Unvalued);
  for (const node of document.querySelectorAll<HTMLElement>('#workshop [data-say-label]'))
    node.setAttribute('aria-label', t(node.dataset.sayLabel as Unvalued));
}

/** The switcher: picking a language loads it, keeps the pick, and has the view say its words again (`redraw`). */
export function offerLanguages(redraw: () => void): void {
  const select = document.getElementById('language') as HTMLSelectElement;
  const label = document.querySelector<HTMLLabelElement>('label[for="language"]')!;
  select.value = pageLanguage();
  label.textContent = t('participant.language');
  select.addEventListener('change', () => {
    const tag = select.value;
    useLanguage(PAGE, tag).then(
      () => {
        choose(tag);
        label.textContent = t('participant.language');
        redraw();
      },
      () => {
        // Offline, and that language never loaded here: the page stays as it was, and says why.
        select.value = pageLanguage();
        document.getElementById('join-status')!.textContent = t('participant.language_offline');
      },
    );
  });
}
