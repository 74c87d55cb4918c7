/*
 * What every console form shares: a field with its label and hint, and an action's state (busy,
 * refused with the service's words, the input it names marked invalid).
 */
import { useSignal, type Signal } from '@preact/signals';
import type { ComponentChildren, JSX } from 'preact';
import { useId } from 'preact/hooks';
import { problemField, problemText } from './api';
import { t } from './i18n';

export interface Action {
  busy: Signal<boolean>;
  problem: Signal<string>;
  /** The request member the last refusal named (`title`, `email`…), to mark its input. */
  field: Signal<string | null>;
  /** Runs `work`, keeping `busy` set meanwhile; a refusal is shown, not thrown. Resolves true when it succeeded. */
  run(work: () => Promise<unknown>): Promise<boolean>;
}

/** The state of one action of a view (a form's submission, a button's call). */
export function useAction(): Action {
  const busy = useSignal(false);
  const problem = useSignal('');
  const field = useSignal<string | null>(null);
  return {
    busy,
    problem,
    field,
    async run(work) {
      if (busy.value) return false;
      busy.value = true;
      problem.value = '';
      field.value = null;
      try {
        await work();
        return true;
      } catch (err) {
        problem.value = problemText(err);
        field.value = problemField(err);
        return false;
      } finally {
        busy.value = false;
      }
    },
  };
}

/** Where an action's refusal is said: read out as it appears. */
export function Problem({ action }: { action: Action }) {
  return (
    <p class="problem" role="alert">
      {action.problem.value}
    </p>
  );
}

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput'>;

/** A labelled text input bound to a signal; `name` is the request member it fills (marked when refused). */
export function Field(
  props: { label: string; value: Signal<string>; hint?: string; action?: Action; name?: string } & InputProps,
) {
  const { label, value, hint, action, name, ...input } = props;
  const id = useId();
  const invalid = action !== undefined && name !== undefined && action.field.value === name;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        value={value.value}
        onInput={(event) => (value.value = event.currentTarget.value)}
        aria-invalid={invalid || undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...input}
      />
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/** A submit handler that keeps the browser from sending the form itself. */
export function onSubmit(handler: () => unknown) {
  return (event: Event) => {
    event.preventDefault();
    void handler();
  };
}

/** A heading and its content, as every panel of the console lays them out. */
export function Panel(props: { title: string; children: ComponentChildren; id?: string; class?: string }) {
  const headingId = useId();
  return (
    <section id={props.id} class={`panel ${props.class ?? ''}`} aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
    </section>
  );
}

/**
 * A button whose action asks first, in the page (no browser dialog): pressing it shows the
 * question with a confirming and a cancelling button, the confirming one focused.
 */
export function ConfirmButton(props: {
  label: string;
  /** Read out after `label` but not shown: which row's button it is (` Tracker` after `Revoke`). */
  labelSuffix?: string;
  question: string;
  confirm: string;
  onConfirm: () => unknown;
  class?: string;
  disabled?: boolean;
}) {
  const asking = useSignal(false);
  if (!asking.value)
    return (
      <button type="button" class={props.class} disabled={props.disabled} onClick={() => (asking.value = true)}>
        {props.label}
        {props.labelSuffix && <span class="visually-hidden">{props.labelSuffix}</span>}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <button
        type="button"
        class="danger"
        ref={(button) => button?.focus()}
        onClick={() => {
          asking.value = false;
          void props.onConfirm();
        }}
      >
        {props.confirm}
      </button>
      <button type="button" onClick={() => (asking.value = false)}>
        {t('console.common.cancel')}
      </button>
    </span>
  );
}

/** A labelled select bound to a signal (its label names it alone: the options are not part of its name). */
export function SelectField(props: {
  label: string;
  value: Signal<string>;
  options: Array<{ value: string; label: string }>;
  hint?: string;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value.value}
        onChange={(event) => (props.value.value = event.currentTarget.value)}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {props.hint && (
        <p id={`${id}-hint`} class="hint">
          {props.hint}
        </p>
      )}
    </div>
  );
}

/**
 * A form's end: its refusal, the submit button (off while the action runs), and a status read out
 * when it changes (`Saved.`, `2 invitations sent.`); `children` go after it (an "unsaved" hint).
 */
export function SubmitRow(props: { action: Action; label: string; status: string; children?: ComponentChildren }) {
  return (
    <>
      <Problem action={props.action} />
      <div class="save-row">
        <button type="submit" class="primary" disabled={props.action.busy.value}>
          {props.label}
        </button>
        <span role="status" class="done">
          {props.status}
        </span>
        {props.children}
      </div>
    </>
  );
}

/** One choice among a few, as radio buttons (every option visible, each with its own label). */
export function Radios<T extends string>(props: {
  legend: string;
  name: string;
  options: ReadonlyArray<readonly [T, string]>;
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset class="radios">
      <legend>{props.legend}</legend>
      {props.options.map(([value, label]) => (
        <label class="choice" key={value}>
          <input
            type="radio"
            name={props.name}
            value={value}
            checked={props.value === value}
            onChange={() => props.onChange(value)}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
}
