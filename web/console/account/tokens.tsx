/*
 * The Account page's personal API tokens (docs/integrations.md#api-tokens): listed without their
 * secrets, made with a name, scopes and an optional expiry, the secret shown once with a copy
 * button, and revoked after asking in words. A token acts as the person, within its scopes.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, InputProblem } from '../api';
import { ConfirmButton, Field, Problem, SubmitRow, onSubmit, useAction } from '../forms';
import { SecretOnce } from '../secret-once';

type Scope =
  | 'workshops:read'
  | 'workshops:write'
  | 'cards:read'
  | 'cards:write'
  | 'votes:write'
  | 'members:read'
  | 'members:write'
  | 'exports:read'
  | 'exports:write'
  | 'webhooks:read'
  | 'webhooks:write';

type ApiToken = {
  id: string;
  name: string;
  scopes: Scope[];
  prefix: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
};

/** Each scope, and what it lets a token do, in the order the service lists them. */
const SCOPES: Array<{ scope: Scope; words: string }> = [
  { scope: 'workshops:read', words: 'read workshops, their agendas and logs' },
  { scope: 'workshops:write', words: 'create, change and delete workshops' },
  { scope: 'cards:read', words: 'read cards and what hangs on them' },
  { scope: 'cards:write', words: 'add, change and delete cards, comments, items and files' },
  { scope: 'votes:write', words: 'vote and clear votes' },
  { scope: 'members:read', words: 'read members, organizations and invitations' },
  { scope: 'members:write', words: 'add and remove members, send invitations' },
  { scope: 'exports:read', words: 'read and download exports' },
  { scope: 'exports:write', words: 'start and delete exports' },
  { scope: 'webhooks:read', words: 'read webhooks and their deliveries' },
  { scope: 'webhooks:write', words: 'create, change and test webhooks' },
];

const day = (iso: string) => <time dateTime={iso}>{new Date(iso).toLocaleDateString()}</time>;

export function Tokens(props: { confirmed: boolean }) {
  const tokens = useSignal<ApiToken[] | null>(null);
  const made = useSignal<{ name: string; token: string } | null>(null);
  const load = useAction();
  const revoking = useAction();
  const told = useSignal('');
  const read = () =>
    load.run(async () => {
      tokens.value = await api.get('/v1/user/me/api_tokens');
    });
  useEffect(() => {
    void read();
  }, []);
  const revoke = (token: ApiToken) =>
    revoking.run(async () => {
      told.value = '';
      await api.delete('/v1/user/me/api_tokens/{token_id}', { params: { path: { token_id: token.id } } });
      if (made.value?.name === token.name) made.value = null;
      told.value = `The token “${token.name}” is revoked: it no longer works.`;
      await read();
    });

  const list = tokens.value;
  return (
    <>
      <p class="hint">
        A token lets a program use the service as you, within the scopes you give it. Whoever has it can do that much:
        revoke it here when it is no longer needed.
      </p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? 'Loading…' : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">You have no personal API tokens.</p>
      ) : (
        <ul class="account-list token-list-personal">
          {list.map((token) => (
            <li key={token.id} class="account-row personal-token" data-token={token.id}>
              <div class="account-row-text">
                <span class="account-row-name">{token.name}</span> <code class="meta">{token.prefix}…</code>
                <dl class="account-row-facts">
                  <div>
                    <dt>Scopes</dt>
                    <dd class="personal-token-scopes">{token.scopes.join(', ')}</dd>
                  </div>
                  <div>
                    <dt>Created</dt>
                    <dd>{day(token.created_at)}</dd>
                  </div>
                  <div>
                    <dt>Expires</dt>
                    <dd>{token.expires_at ? day(token.expires_at) : 'Never'}</dd>
                  </div>
                  <div>
                    <dt>Last used</dt>
                    <dd class="personal-token-used">
                      {token.last_used_at ? (
                        <time dateTime={token.last_used_at}>{new Date(token.last_used_at).toLocaleString()}</time>
                      ) : (
                        'Never'
                      )}
                    </dd>
                  </div>
                </dl>
              </div>
              <ConfirmButton
                label="Revoke"
                labelSuffix={` ${token.name}`}
                class="danger"
                question={`Revoke “${token.name}”? Whatever uses it stops working at once.`}
                confirm="Revoke token"
                onConfirm={() => revoke(token)}
              />
            </li>
          ))}
        </ul>
      )}
      <p role="status" class="done">
        {told.value}
      </p>
      <Problem action={revoking} />
      {made.value && (
        <SecretOnce
          title={`The token “${made.value.name}” is made. It is shown this once: copy it now.`}
          secret={made.value.token}
          hint="Send it as “Authorization: Bearer …”. The service keeps only a fingerprint of it: a lost token cannot be shown again; revoke it and make another."
          onDone={() => (made.value = null)}
        />
      )}
      {props.confirmed ? (
        <CreateForm
          onMade={async (token) => {
            told.value = '';
            made.value = token;
            await read();
          }}
        />
      ) : (
        <p class="hint">Confirm your address first: only a confirmed account makes API tokens.</p>
      )}
    </>
  );
}

function CreateForm(props: { onMade: (token: { name: string; token: string }) => Promise<unknown> }) {
  const name = useSignal('');
  const scopes = useSignal<Scope[]>([]);
  const expires = useSignal('');
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      if (scopes.value.length === 0) throw new InputProblem('Choose at least one scope.', 'scopes');
      const created = await api.post('/v1/user/me/api_tokens', {
        body: {
          name: name.value.trim(),
          scopes: scopes.value,
          // The end of the chosen day, in the person's own time zone.
          ...(expires.value && { expires_at: new Date(`${expires.value}T23:59:59.999`).toISOString() }),
        },
      });
      name.value = '';
      scopes.value = [];
      expires.value = '';
      await props.onMade({ name: created.name, token: created.token });
    });
  const toggle = (scope: Scope, on: boolean) => {
    const chosen = new Set(scopes.value);
    if (on) chosen.add(scope);
    else chosen.delete(scope);
    scopes.value = SCOPES.map((s) => s.scope).filter((s) => chosen.has(s));
  };
  return (
    <form class="form account-token-form" onSubmit={onSubmit(submit)} aria-label="Make a token">
      <h3>Make a token</h3>
      <Field
        label="Name"
        name="name"
        required
        maxLength={100}
        hint="What uses it, to know it again."
        value={name}
        action={action}
      />
      <fieldset class="scopes">
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, words }) => (
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
      </fieldset>
      <Field
        label="Expires on (optional)"
        type="date"
        name="expires_at"
        hint="Without a day it works until it is revoked."
        value={expires}
        action={action}
      />
      <SubmitRow action={action} label="Make the token" status="" />
    </form>
  );
}
