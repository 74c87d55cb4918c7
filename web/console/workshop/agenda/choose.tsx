/*
 * A labelled choice among named options, as a select. The label names the select by `for`, so
 * the select's name is the label's words alone, without its options' text.
 */
import type { MessageId, MessageValues } from 'i18n-messages';
import { useId } from 'preact/hooks';
import { t } from '../../i18n';

/** A message that takes no values: the words of a choice. */
export type Words = { [I in MessageId]: MessageValues[I] extends undefined ? I : never }[MessageId];

/** Choices given with the ids of their words, with the words in the console's language, said when drawn. */
export function said<T extends string>(choices: ReadonlyArray<readonly [T, Words]>): Array<[T, string]> {
  return choices.map(([value, words]) => [value, t(words)]);
}

export function Choose<T extends string>(props: {
  label: string;
  options: ReadonlyArray<readonly [T, string]>;
  value: T;
  onChange: (value: T) => void;
  inline?: boolean;
}) {
  const id = useId();
  return (
    <div class={props.inline ? 'field inline' : 'field'}>
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as T)}>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
