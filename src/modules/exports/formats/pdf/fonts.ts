import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { create, type Font } from 'fontkit';
import { readsRightToLeft } from '../report-text';

/*
 * The report's text goes through a chain of embedded fonts: DejaVu Sans (Latin, Greek, Cyrillic,
 * Arabic, Hebrew and many symbols), then Source Han Sans CN (Chinese, kana, CJK punctuation) and
 * Source Han Sans KR (Hangul). Each character is set in the first font of the chain that has it;
 * a character none has (most emoji) is shown as a white square, so it is visibly missing instead
 * of vanishing.
 */

const require = createRequire(import.meta.url);

const FACE_FILES = {
  sans: 'dejavu-fonts-ttf/ttf/DejaVuSans.ttf',
  sansBold: 'dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf',
  han: '@librescore/fonts/SourceHanSansCN.min.woff2',
  hangul: '@librescore/fonts/SourceHanSansKR.min.woff2',
} as const;

export type Face = keyof typeof FACE_FILES;

const CHAINS = {
  regular: ['sans', 'han', 'hangul'],
  // Bold falls back to the regular DejaVu before the CJK fonts, which have no bold here.
  bold: ['sansBold', 'sans', 'han', 'hangul'],
} as const satisfies Record<string, readonly Face[]>;

export type Weight = keyof typeof CHAINS;

/** Stands in for a character no font has. */
const MISSING_GLYPH = '\u25A1';

/*
 * Parsed fonts, kept for the life of the process (the export worker renders many reports): the
 * CJK files are WOFF2, whose decompression costs more than laying out a whole report, and a
 * parsed font is never changed by the documents that embed it (each takes its own subset).
 */
const loaded = new Map<Face, Font>();

export function loadFace(face: Face): Font {
  let font = loaded.get(face);
  if (!font) {
    const parsed = create(readFileSync(require.resolve(FACE_FILES[face])));
    if (!('hasGlyphForCodePoint' in parsed)) throw new Error(`${FACE_FILES[face]} is a font collection, not a font.`);
    font = parsed;
    loaded.set(face, font);
  }
  return font;
}

/** Which face of each chain sets a code point (null: none), memoised per chain. */
const coverage: Record<Weight, Map<number, Face | null>> = { regular: new Map(), bold: new Map() };

function faceFor(codePoint: number, weight: Weight): Face | null {
  const known = coverage[weight];
  let face = known.get(codePoint);
  if (face === undefined) {
    face = CHAINS[weight].find((candidate) => loadFace(candidate).hasGlyphForCodePoint(codePoint)) ?? null;
    known.set(codePoint, face);
  }
  return face;
}

/** Joiners, variation selectors, skin tones and tag characters: invisible parts of an emoji. */
function isEmojiModifier(codePoint: number): boolean {
  return (
    codePoint === 0x200d ||
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f) ||
    (codePoint >= 0x1f3fb && codePoint <= 0x1f3ff) ||
    (codePoint >= 0xe0020 && codePoint <= 0xe007f) ||
    codePoint === 0x20e3
  );
}

/** The letters that make flags in pairs. */
function isRegionalIndicator(codePoint: number): boolean {
  return codePoint >= 0x1f1e6 && codePoint <= 0x1f1ff;
}

const RTL_LETTERS = '\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC';
// A stretch of right-to-left words, with the spaces and punctuation between them.
const RTL_STRETCH = new RegExp(`[${RTL_LETTERS}](?:[ \\p{P}\\p{S}]*[${RTL_LETTERS}])*`, 'gu');
const HAS_RTL = new RegExp(`[${RTL_LETTERS}]`);

/** Whether `text` has right-to-left letters (Arabic, Hebrew and their neighbours). */
export function hasRightToLeft(text: string): boolean {
  return HAS_RTL.test(text);
}

/**
 * The text in pieces in visual order, for a line that will not be wrapped again: a simplified
 * bidirectional layout. The font engine sets a piece of right-to-left letters right to left, so
 * each right-to-left stretch goes out as one piece in reading order, its spaces made no-break
 * spaces (pdfkit cuts a text at spaces and the engine would carry each space to the other side of
 * its word). A line whose first letter reads right to left has its pieces in reverse order.
 */
function visualPieces(text: string): string[] {
  if (!HAS_RTL.test(text)) return [text];
  const pieces: string[] = [];
  let done = 0;
  for (const match of text.matchAll(RTL_STRETCH)) {
    if (match.index > done) pieces.push(text.slice(done, match.index));
    pieces.push(match[0].replaceAll(' ', '\u00a0'));
    done = match.index + match[0].length;
  }
  if (done < text.length) pieces.push(text.slice(done));
  if (!readsRightToLeft(text)) return pieces;
  // Reversed, a left-to-right piece keeps its words but its edge spaces change sides with it.
  return pieces.reverse().map((piece) => (HAS_RTL.test(piece) ? piece : piece.replace(/^(\s*)(.*?)(\s*)$/s, '$3$2$1')));
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/g;
const PLAIN_ASCII = /^[\u0020-\u007e\n]*$/;

/** Line breaks as `\n` and other control characters as spaces: fonts have no glyph for them. */
function cleanText(text: string): string {
  return text.replace(/\r\n?|[\u2028\u2029]/g, '\n').replace(CONTROL, ' ');
}

export interface Run {
  face: Face;
  text: string;
}

/** The text cut into runs, each set in one face of the chain, in visual order. */
export function runsOf(text: string, weight: Weight): Run[] {
  const clean = cleanText(text);
  const first = CHAINS[weight][0];
  if (PLAIN_ASCII.test(clean)) return [{ face: first, text: clean }];
  const runs: Run[] = [];
  for (const piece of visualPieces(clean)) {
    const pieceRuns: Run[] = [];
    const push = (face: Face, character: string) => {
      const last = pieceRuns[pieceRuns.length - 1];
      if (last && last.face === face) last.text += character;
      else pieceRuns.push({ face, text: character });
    };
    // After a missing character, the modifiers and joined characters of the same emoji, and the
    // second letter of a flag, add no square.
    let afterMissing = false;
    let joining = false;
    let flagHalf = false;
    for (const character of piece) {
      const codePoint = character.codePointAt(0)!;
      if (joining || (flagHalf && isRegionalIndicator(codePoint))) {
        joining = flagHalf = false;
        continue;
      }
      if (afterMissing && isEmojiModifier(codePoint)) {
        joining = codePoint === 0x200d;
        continue;
      }
      const face = character === '\n' ? first : faceFor(codePoint, weight);
      if (face !== null) {
        push(face, character);
        afterMissing = flagHalf = false;
      } else if (!isEmojiModifier(codePoint)) {
        push(first, MISSING_GLYPH);
        afterMissing = true;
        flagHalf = isRegionalIndicator(codePoint);
      }
    }
    runs.push(...pieceRuns);
  }
  return runs;
}
