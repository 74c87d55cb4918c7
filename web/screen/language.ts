import { messageFiles, pageLanguage, t, useLanguage } from '../shared/i18n';

/*
 * The screen's language (docs/i18n.md#which-language): the workshop's, as the room reads the
 * screen together. The page comes in the request's language (the server cannot tell who asks for
 * it, so it says nothing of the workshop), and moves to the workshop's once the workshop is open,
 * before its first words of it, and again whenever the workshop's language changes. A screen
 * asked for in the pseudo-locale by name (`Accept-Language: en-XA`) stays in it.
 */

const PAGE = 'screen';
/** The pseudo-locale (src/i18n/catalog.ts): never a workshop's language, kept when asked for. */
const PSEUDO_LANGUAGE = 'en-XA';

const listeners: (() => void)[] = [];
/** The language last asked for, loaded or on its way: a change asked twice loads once. */
let wanted = '';

/** Loads the messages of the language the page was served in (preloaded with it). */
export async function startLanguage(): Promise<void> {
  wanted = document.documentElement.lang;
  try {
    await useLanguage(PAGE, wanted);
  } catch {
    // Without its messages the page shows their ids: visible, and no worse than not starting.
  }
}

/** Calls `listener` each time the screen has moved to another language, for it to say its words again. */
export function onLanguageChange(listener: () => void): void {
  listeners.push(listener);
}

/**
 * Moves the screen to the workshop's language `tag`, unless it shows that one already, or the
 * pseudo-locale, or has no messages in it. Resolves once the words are there (or it stays put:
 * its file could not be had).
 */
export async function followWorkshop(tag: string): Promise<void> {
  if (wanted === tag || pageLanguage() === PSEUDO_LANGUAGE || !messageFiles()[tag]) return;
  wanted = tag;
  try {
    await useLanguage(PAGE, tag);
  } catch {
    // Offline with that file never loaded: the screen keeps the language it has, and tries again
    // at the next change of the workshop.
    wanted = pageLanguage();
    return;
  }
  for (const listener of listeners) listener();
}

const byId = (id: string) => document.getElementById(id)!;

/** The frame's own words (those src/pages/screen.ts writes), said again in the screen's language. */
export function sayFrame(): void {
  document.title = t('screen.title');
  byId('connection').textContent = t('screen.reconnecting');
  byId('sign-in-title').textContent = t('screen.sign_in.title');
  byId('email-label').textContent = t('screen.sign_in.email');
  byId('password-label').textContent = t('screen.sign_in.password');
  byId('sign-in-button').textContent = t('screen.sign_in.submit');
  byId('private-notice').textContent = t('screen.privacy.private');
  byId('anonymous-notice').textContent = t('screen.privacy.anonymous');
  byId('invite-title').textContent = t('screen.invite.title');
  byId('lobby').setAttribute('aria-label', t('screen.lobby_label'));
  byId('empty').textContent = t('screen.empty');
  byId('following').textContent = t('screen.following');
  byId('sign-out').textContent = t('screen.sign_out');
}

/**
 * A message whose placeholders are elements (an address, a code shown large): its words as text
 * nodes, each element in its place, so a language puts them where its sentence needs them.
 */
export function sentenceWith(id: 'screen.invite.how', elements: { address: Node; code: Node }): (string | Node)[] {
  const order = Object.keys(elements) as (keyof typeof elements)[];
  const marks = Object.fromEntries(order.map((name, at) => [name, `\uE000${at}\uE001`])) as Record<
    keyof typeof elements,
    string
  >;
  return t(id, marks)
    .split(/\uE000(\d+)\uE001/)
    .map((piece, at) => (at % 2 === 1 ? elements[order[Number(piece)]!] : piece))
    .filter((piece) => piece !== '');
}
