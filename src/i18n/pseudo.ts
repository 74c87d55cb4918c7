import { TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

/*
 * The pseudo-locale `en-XA`, made from the English messages: every letter accented, about 40 %
 * longer, and wrapped in ⟦ ⟧. A page shown in it makes visible any text that does not come from a
 * catalog (plain English), any that is cut (a missing ⟧) and any layout too tight for a longer
 * language. Placeholders, plurals and tags keep their structure: only literal text changes.
 */

const ACCENTED: Record<string, string> = {
  a: 'á', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ',
  n: 'ñ', o: 'ö', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'û', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Å', B: 'Ɓ', C: 'Ç', D: 'Ð', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Î', J: 'Ĵ', K: 'Ķ', L: 'Ļ', M: 'Ṁ',
  N: 'Ñ', O: 'Ö', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Û', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
}; // prettier-ignore

export const PSEUDO_OPEN = '⟦';
export const PSEUDO_CLOSE = '⟧';
/** How much longer than English the pseudo-locale's texts are (German and French often run 30–40 % longer). */
const EXPANSION = 0.4;

function accented(text: string): string {
  return text.replace(/[A-Za-z]/g, (letter) => ACCENTED[letter] ?? letter);
}

/** The letters a message shows (its literal text, each branch of a plural or select counted). */
function letterCount(elements: MessageFormatElement[]): number {
  let count = 0;
  for (const element of elements) {
    if (element.type === TYPE.literal) count += element.value.length;
    else if (element.type === TYPE.tag) count += letterCount(element.children);
    else if (element.type === TYPE.plural || element.type === TYPE.select) {
      const options = Object.values(element.options);
      count += Math.max(0, ...options.map((option) => letterCount(option.value)));
    }
  }
  return count;
}

function accentElements(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((element): MessageFormatElement => {
    switch (element.type) {
      case TYPE.literal:
        return { ...element, value: accented(element.value) };
      case TYPE.tag:
        return { ...element, children: accentElements(element.children) };
      case TYPE.plural:
      case TYPE.select:
        return {
          ...element,
          options: Object.fromEntries(
            Object.entries(element.options).map(([key, option]) => [
              key,
              { ...option, value: accentElements(option.value) },
            ]),
          ),
        } as MessageFormatElement;
      default:
        return element;
    }
  });
}

/** The pseudo-locale's version of a parsed English message. */
export function pseudoMessage(elements: MessageFormatElement[]): MessageFormatElement[] {
  const padding = '·'.repeat(Math.ceil(letterCount(elements) * EXPANSION));
  return [
    { type: TYPE.literal, value: PSEUDO_OPEN },
    ...accentElements(elements),
    { type: TYPE.literal, value: `${padding}${PSEUDO_CLOSE}` },
  ];
}
