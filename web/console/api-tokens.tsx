/*
 * What the Account page's personal tokens and the Organization page's tokens have in common
 * (docs/integrations.md#api-tokens): the scopes in words, a token's facts, and the form that makes
 * one (a name, one scope at least, an expiry if wanted). Each page lists and revokes its own.
 */
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import type { paths } from 'workshop-sdk';
import { InputProblem } from './api';
import { Field, onSubmit, SubmitRow, useAction } from './forms';
import { dayOf, momentOf } from './dates';

type Ok<T> = T extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;
/** A token as both pages list it; an organization's also names its maker. */
export type ApiToken = Ok<paths['/v1/user/me/api_tokens']['get']>[number];
export type Scope = ApiToken['scopes'][number];

/** Fails the type check when `T` is not empty: a scope the service knows and the console does not. */
type None<T extends never> = T;

/** Each scope with what it lets a token do (docs/integrations.md#scopes). */
export const SCOPES = [
  ['workshops:read', 'read workshops, their steps and settings'],
  ['workshops:write', 'create, change, archive and delete workshops'],
  ['cards:read', 'read cards, comments, items and attachments'],
  ['cards:write', 'write and change cards and what is on them'],
  ['votes:write', 'vote and rate'],
  ['members:read', 'read the members of workshops and organizations'],
  ['members:write', 'add, change and remove facilitators and workshop members'],
  ['exports:read', 'read and download exports'],
  ['exports:write', 'start and delete exports'],
  ['webhooks:read', 'read webhook endpoints and deliveries'],
  ['webhooks:write', 'register, change and remove webhook endpoints'],
] as const satisfies ReadonlyArray<readonly [Scope, string]>;
export type AllScopesListed = None<Exclude<Scope, (typeof SCOPES)[number][0]>>;

const day = (iso: string) => <time dateTime={iso}>{dayOf(iso)}</time>;

/** A token's maker (when given), scopes, and when it was made, expires and was last used. */
export function TokenFacts(props: { token: ApiToken; maker?: string }) {
  const { token } = props;
  return (
    <dl class="token-facts">
      {props.maker !== undefined && (
        <div>
          <dt>Made by</dt>
          <dd class="token-maker">{props.maker}</dd>
        </div>
      )}
      <div>
        <dt>Scopes</dt>
        <dd class="token-scopes">{token.scopes.join(', ')}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>{day(token.created_at)}</dd>
      </div>
      <div>
        <dt>Expires</dt>
        <dd class="token-expires">{token.expires_at ? day(token.expires_at) : 'Never'}</dd>
      </div>
      <div>
        <dt>Last used</dt>
        <dd class="token-used">
          {token.last_used_at ? <time dateTime={token.last_used_at}>{momentOf(token.last_used_at)}</time> : 'Never'}
        </dd>
      </div>
    </dl>
  );
}

export interface NewToken {
  name: string;
  scopes: Scope[];
  expires_at?: string;
}

/** Makes a token through `create`, then hands its one-time secret to `onMade`. */
export function CreateTokenForm(props: {
  title: string;
  submitLabel: string;
  /** Who the token acts as, said beside the scopes. */
  scopesHint: string;
  formClass: string;
  create: (token: NewToken) => Promise<{ name: string; token: string }>;
  onMade: (made: { name: string; token: string }) => Promise<unknown>;
}) {
  const name = useSignal('');
  const scopes = useSignal<Scope[]>([]);
  const expires = useSignal('');
  const action = useAction();
  const scopesHint = useId();
  const submit = () =>
    action.run(async () => {
      if (scopes.value.length === 0) throw new InputProblem('Choose at least one scope.', 'scopes');
      const made = await props.create({
        name: name.value.trim(),
        scopes: scopes.value,
        // The end of the chosen day, in the person's own time zone.
        ...(expires.value && { expires_at: new Date(`${expires.value}T23:59:59.999`).toISOString() }),
      });
      name.value = '';
      scopes.value = [];
      expires.value = '';
      await props.onMade({ name: made.name, token: made.token });
    });
  const toggle = (scope: Scope, on: boolean) => {
    const chosen = new Set(scopes.value);
    if (on) chosen.add(scope);
    else chosen.delete(scope);
    scopes.value = SCOPES.map(([listed]) => listed).filter((listed) => chosen.has(listed));
  };
  return (
    <form class={`form create-token ${props.formClass}`} onSubmit={onSubmit(submit)} aria-label={props.title}>
      <h3>{props.title}</h3>
      <Field
        label="Name"
        name="name"
        required
        maxLength={100}
        autocomplete="off"
        hint="What uses it, to know it again."
        value={name}
        action={action}
      />
      <fieldset
        class="checks"
        aria-describedby={scopesHint}
        aria-invalid={action.field.value === 'scopes' || undefined}
      >
        <legend>Scopes</legend>
        <p id={scopesHint} class="hint">
          {props.scopesHint}
        </p>
        <div class="check-grid">
          {SCOPES.map(([scope, words]) => (
            <label key={scope} class="choice">
              <input
                type="checkbox"
                checked={scopes.value.includes(scope)}
                onChange={(event) => toggle(scope, event.currentTarget.checked)}
              />
              <span>
                <code>{scope}</code> <span class="meta">{words}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <Field
        label="Expires on (optional)"
        type="date"
        name="expires_at"
        hint="Without a day it works until it is revoked."
        value={expires}
        action={action}
      />
      <SubmitRow action={action} label={props.submitLabel} status="" />
    </form>
  );
}
