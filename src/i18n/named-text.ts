import * as v from 'valibot';
import { appMessages } from './messages';

/*
 * The built-in catalogs (workshop templates, predefined canvases) keep their structure in their
 * JSON files and their words in `locales/`: a file names each text by its message id, so the words
 * exist in every language (docs/i18n.md#template-and-canvas-text). A workshop or canvas made from
 * one takes the words once, in the workshop's language; from then on they are its people's words.
 */

/** Whether `id` is, in every language, a trimmed, non-empty text of at most `max` characters. */
function fits(id: string, max: number): boolean {
  const messages = appMessages();
  // An unknown id is the other check's to report.
  if (!messages.ids.includes(id)) return true;
  return messages.languages.every((lang) => {
    const text = messages.compiled(lang, id);
    return typeof text === 'string' && text.trim() === text && text.length > 0 && text.length <= max;
  });
}

/**
 * A member of a catalog file that names a message of `locales/en.json`: one without placeholders,
 * whose text in every language would pass where it lands (at most `max` characters).
 */
export const namedText = (max: number) =>
  v.pipe(
    v.string(),
    v.check((id) => appMessages().ids.includes(id), 'Must name a message of locales/en.json.'),
    v.check(
      (id) => fits(id, max),
      `Must name a message without placeholders, trimmed and 1 to ${max} characters in every language.`,
    ),
  );

/** The text a catalog file names, in `lang`. */
export function namedTextIn(lang: string, id: string): string {
  return appMessages().format(lang, id);
}
