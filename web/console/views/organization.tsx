/*
 * `/organizations/<id>`: an organization's settings. Its admins see the organization's API tokens
 * (docs/integrations.md#api-tokens): each one's name, who made it, its scopes, when it was made
 * and last used; and revoke one, asked first in words. A token outlives its maker's seat, so the
 * maker is named here even after they left. Other members are told that admins manage tokens.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError } from 'workshop-sdk';
import { api, problemText } from '../api';
import { ConfirmButton, Panel, Problem, useAction } from '../forms';
import { Link } from '../router';
import { forget } from '../session';
import { NotOpen } from '../not-open';

type Organization = { id: string; name: string };
type ApiToken = {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  created_by: { id: string | null; name: string };
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
};

export function OrganizationSettings({ id }: { id: string }) {
  const organization = useSignal<Organization | null>(null);
  const problem = useSignal('');
  useEffect(() => {
    api.get('/v1/organizations/{id}', { params: { path: { id } } }).then(
      (found) => (organization.value = found),
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 401) return forget();
        problem.value =
          err instanceof ApiError && err.status === 404
            ? 'There is no such organization, or you are not one of its members.'
            : problemText(err);
      },
    );
  }, [id]);

  if (problem.value || !organization.value)
    return <NotOpen title="Organization" problem={problem.value} opening="Opening the organization…" />;
  return (
    <main class="organization">
      <p class="crumbs">
        <Link href="/">Workshops</Link>
      </p>
      <h1>{organization.value.name}</h1>
      <Panel title="API tokens">
        <ApiTokens organizationId={id} />
      </Panel>
    </main>
  );
}

/** The organization's tokens, newest first, each revocable; for its admins only (the service says so). */
function ApiTokens({ organizationId }: { organizationId: string }) {
  const tokens = useSignal<ApiToken[] | null>(null);
  const adminsOnly = useSignal(false);
  const load = useAction();
  const revoking = useAction();
  const told = useSignal('');
  const read = () =>
    load.run(async () => {
      try {
        tokens.value = await api.get('/v1/organizations/{id}/api_tokens', { params: { path: { id: organizationId } } });
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 403)) throw err;
        adminsOnly.value = true;
      }
    });
  useEffect(() => {
    void read();
  }, [organizationId]);
  const revoke = (token: ApiToken) =>
    revoking.run(async () => {
      told.value = '';
      await api.delete('/v1/organizations/{id}/api_tokens/{token_id}', {
        params: { path: { id: organizationId, token_id: token.id } },
      });
      told.value = `The token “${token.name}” is revoked: it no longer works.`;
      await read();
    });

  if (adminsOnly.value) return <p class="empty">Only the organization’s admins see and revoke its API tokens.</p>;
  const list = tokens.value;
  return (
    <>
      <p class="hint">
        Tokens let other systems use the service for this organization. One keeps working when the person who made it
        leaves, until an admin revokes it here.
      </p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? 'Loading…' : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">This organization has no API tokens.</p>
      ) : (
        <ul class="token-list">
          {list.map((token) => (
            <li key={token.id} class="token-row" data-token={token.id}>
              <div class="token-text">
                <span class="token-name">{token.name}</span> <code class="meta">{token.prefix}…</code>
                <dl class="token-facts">
                  <div>
                    <dt>Made by</dt>
                    <dd class="token-maker">{token.created_by.name}</dd>
                  </div>
                  <div>
                    <dt>Scopes</dt>
                    <dd class="token-scopes">{token.scopes.join(', ')}</dd>
                  </div>
                  <div>
                    <dt>Created</dt>
                    <dd>
                      <time dateTime={token.created_at}>{new Date(token.created_at).toLocaleDateString()}</time>
                    </dd>
                  </div>
                  <div>
                    <dt>Last used</dt>
                    <dd class="token-used">
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
    </>
  );
}
