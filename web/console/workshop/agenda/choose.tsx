/*
 * A labelled choice among named options, as a select. The label names the select by `for`, so
 * the select's name is the label's words alone, without its options' text.
 */
import { useId } from 'preact/hooks';

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
