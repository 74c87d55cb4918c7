/*
 * What the Account page's personal tokens and the Organization page's tokens have in common
 * (docs/integrations.md#api-tokens): the scopes in words, a token's facts, and the form that makes
 * one (a name, one scope at least, an expiry if wanted). Each page lists and revokes its own.
 */
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import type { MessageId } from 'i18n-messages';
import type { paths } from 'workshop-sdk';
import { InputProblem } from './api';
import { Field, onSubmit, SubmitRow, useAction } from './forms';
import { dayOf, momentOf } from './dates';
import { t } from './i18n';

type Ok<T> = T extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;
/** A token as both pages list it; an organization's also names its maker. */
export type ApiToken = Ok<paths['/v1/user/me/api_tokens']['get']>[number];
export type Scope = ApiToken['scopes'][number];

/** Fails the type check when `T` is not empty: a scope the service knows and the console does not. */
type None<T extends never> = T;

/** Each scope with the message saying what it lets a token do (docs/integrations.md#scopes). */
export const SCOPES = [
  ['workshops:read', 'console.tokens.scope.workshops_read'],
  ['workshops:write', 'console.tokens.scope.workshops_write'],
  ['cards:read', 'console.tokens.scope.cards_read'],
  ['cards:write', 'console.tokens.scope.cards_write'],
  ['votes:write', 'console.tokens.scope.votes_write'],
  ['members:read', 'console.tokens.scope.members_read'],
  ['members:write', 'console.tokens.scope.members_write'],
  ['exports:read', 'console.tokens.scope.exports_read'],
  ['exports:write', 'console.tokens.scope.exports_write'],
  ['webhooks:read', 'console.tokens.scope.webhooks_read'],
  ['webhooks:write', 'console.tokens.scope.webhooks_write'],
] as const satisfies ReadonlyArray<readonly [Scope, MessageId]>;
export type AllScopesListed = None<Exclude<Scope, (typeof SCOPES)[number][0]>>;

/** A token's first characters, as the lists show them: the rest is never known again. */
export const prefixShown = (prefix: string) => `${prefix}…`;

const day = (iso: string) => <time dateTime={iso}>{dayOf(iso)}</time>;

/** A token's maker (when given), scopes, and when it was made, expires and was last used. */
export function TokenFacts(props: { token: ApiToken; maker?: string }) {
  const { token } = props;
  return (
    <dl class="token-facts">
      {props.maker !== undefined && (
        <div>
          <dt>{t('console.tokens.made_by')}</dt>
          <dd class="token-maker">{props.maker}</dd>
        </div>
      )}
      <div>
        <dt>{t('console.fields.scopes')}</dt>
        <dd class="token-scopes">{token.scopes.join(', ')}</dd>
      </div>
      <div>
        <dt>{t('console.common.created')}</dt>
        <dd>{day(token.created_at)}</dd>
      </div>
      <div>
        <dt>{t('console.tokens.expires')}</dt>
        <dd class="token-expires">{token.expires_at ? day(token.expires_at) : t('console.common.never')}</dd>
      </div>
      <div>
        <dt>{t('console.common.last_used')}</dt>
        <dd class="token-used">
          {token.last_used_at ? (
            <time dateTime={token.last_used_at}>{momentOf(token.last_used_at)}</time>
          ) : (
            t('console.common.never')
          )}
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
      if (scopes.value.length === 0) throw new InputProblem(t('console.tokens.choose_scope'), 'scopes');
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
        label={t('console.fields.name')}
        name="name"
        required
        maxLength={100}
        autocomplete="off"
        hint={t('console.tokens.name_hint')}
        value={name}
        action={action}
      />
      <fieldset
        class="checks"
        aria-describedby={scopesHint}
        aria-invalid={action.field.value === 'scopes' || undefined}
      >
        <legend>{t('console.fields.scopes')}</legend>
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
                <code>{scope}</code> <span class="meta">{t(words)}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <Field
        label={t('console.tokens.expires_on')}
        type="date"
        name="expires_at"
        hint={t('console.tokens.expires_hint')}
        value={expires}
        action={action}
      />
      <SubmitRow action={action} label={props.submitLabel} status="" />
    </form>
  );
}
