import { match } from '@formatjs/intl-localematcher';

/*
 * Which catalog answers a request: the languages of its `Accept-Language`, most wanted first,
 * matched against the catalogs by BCP 47 lookup (`fr-CA` → `fr`, `ar-EG` → `ar`). Hono's own
 * `languageDetector` matches exact tags only and always falls back; a guest joining needs to
 * know when nothing matched (the guest then speaks the workshop's language; pages fall back to English).
 */

const NONE = 'und';
/** A weight as RFC 9110 §12.4.2 writes it: 0 to 1, three decimals at most. */
const QVALUE = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/**
 * The tags of an `Accept-Language` header, by weight (RFC 9110 §12.5.4; ties keep their order),
 * without `*`, those weighted `q=0`, and those that are no BCP 47 tag.
 */
export function requestedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  const weighted: { tag: string; q: number }[] = [];
  for (const part of header.split(',').slice(0, 20)) {
    const [range = '', ...params] = part.split(';').map((piece) => piece.trim());
    const weight = params.find((param) => /^q=/i.test(param));
    // A weight outside RFC 9110's qvalue (`q=2`, `q=high`) makes the entry malformed: skipped.
    if (weight !== undefined && !QVALUE.test(weight.slice(2))) continue;
    const q = weight === undefined ? 1 : Number(weight.slice(2));
    if (range === '' || range === '*' || !(q > 0)) continue;
    try {
      const [tag] = Intl.getCanonicalLocales(range);
      if (tag) weighted.push({ tag, q });
    } catch {
      // Not a language tag: skipped, as a browser never sends one.
    }
  }
  return weighted.sort((a, b) => b.q - a.q).map(({ tag }) => tag);
}

/** The best of `available` for the header, or undefined when none of its languages has a catalog. */
export function negotiateLanguage(header: string | undefined, available: readonly string[]): string | undefined {
  const requested = requestedLanguages(header);
  if (requested.length === 0) return undefined;
  const found = match(requested, available, NONE, { algorithm: 'lookup' });
  return found === NONE ? undefined : found;
}
