/*
 * `/` signed in: the workshops the person facilitates or takes part in, their organizations'
 * included, with the API's filters (role, state, owner, created between) and a search over the
 * titles; each can be opened, archived or reopened, and deleted. Creating one is create-workshop.tsx.
 * Below, their organizations, each linking to its settings (organization.tsx).
 */
import { useComputed, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { Workshop } from 'workshop-sdk';
import { api } from '../api';
import { ConfirmButton, Problem, useAction } from '../forms';
import { Link } from '../router';
import { me } from '../session';
import { CreateWorkshop, type Organization } from './create-workshop';
import { dayOf } from '../dates';

type Role = '' | 'facilitator' | 'attendee';
type State = '' | 'running' | 'archived';

export function Home() {
  const role = useSignal<Role>('');
  const state = useSignal<State>('running');
  const owner = useSignal('');
  const since = useSignal('');
  const until = useSignal('');
  const search = useSignal('');
  const workshops = useSignal<Workshop[] | null>(null);
  const organizations = useSignal<Organization[]>([]);
  const load = useAction();
  const change = useAction();

  const refresh = () =>
    load.run(async () => {
      const query = {
        ...(role.value && { role: role.value }),
        ...(state.value && { state: state.value }),
        ...(owner.value && { owner: owner.value }),
        // Whole days in the person's own time zone.
        ...(since.value && { since: new Date(`${since.value}T00:00:00`).toISOString() }),
        ...(until.value && { until: new Date(`${until.value}T23:59:59.999`).toISOString() }),
      };
      workshops.value = await api.get('/v1/user/me/workshops', { params: { query } });
    });
  useEffect(() => {
    void refresh();
  }, [role.value, state.value, owner.value, since.value, until.value]);
  useEffect(() => {
    api.get('/v1/user/me/organizations').then(
      (found) => (organizations.value = found),
      () => undefined,
    );
  }, []);

  const shown = useComputed(() => {
    const words = search.value.trim().toLowerCase();
    const list = workshops.value ?? [];
    return words ? list.filter((w) => `${w.title} ${w.description}`.toLowerCase().includes(words)) : list;
  });

  const setState = (workshop: Workshop, next: 'running' | 'archived') =>
    change.run(async () => {
      await api.put('/v1/workshops/{id}', { params: { path: { id: workshop.id } }, body: { state: next } });
      await refresh();
    });
  const remove = (workshop: Workshop) =>
    change.run(async () => {
      await api.delete('/v1/workshops/{id}', { params: { path: { id: workshop.id } } });
      await refresh();
    });

  return (
    <main class="home">
      <h1>Your workshops</h1>
      {me.value && me.value.confirmed_at === null && <Unconfirmed />}
      <CreateWorkshop organizations={organizations.value} workshops={workshops.value} />
      <section class="panel" aria-labelledby="list-title">
        <h2 id="list-title">Workshops</h2>
        <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
          <label>
            Search
            <input type="search" value={search.value} onInput={(e) => (search.value = e.currentTarget.value)} />
          </label>
          <label>
            Role
            <select value={role.value} onChange={(e) => (role.value = e.currentTarget.value as Role)}>
              <option value="">Any</option>
              <option value="facilitator">Facilitating</option>
              <option value="attendee">Taking part</option>
            </select>
          </label>
          <label>
            State
            <select value={state.value} onChange={(e) => (state.value = e.currentTarget.value as State)}>
              <option value="running">Running</option>
              <option value="archived">Archived</option>
              <option value="">Any</option>
            </select>
          </label>
          <label>
            Owner
            <select value={owner.value} onChange={(e) => (owner.value = e.currentTarget.value)}>
              <option value="">Anyone</option>
              {me.value && <option value={me.value.id}>Mine</option>}
              {organizations.value.map((organization) => (
                <option key={organization.id} value={organization.id}>
                  {organization.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Created from
            <input type="date" value={since.value} onInput={(e) => (since.value = e.currentTarget.value)} />
          </label>
          <label>
            to
            <input type="date" value={until.value} onInput={(e) => (until.value = e.currentTarget.value)} />
          </label>
        </form>
        <Problem action={load} />
        <Problem action={change} />
        {workshops.value === null ? (
          <p role="status">Loading…</p>
        ) : shown.value.length === 0 ? (
          <p class="empty">No workshop matches.</p>
        ) : (
          <ul class="workshop-list">
            {shown.value.map((workshop) => (
              <li key={workshop.id} class="workshop-row" data-workshop={workshop.id}>
                <div class="workshop-row-text">
                  <Link href={`/workshops/${encodeURIComponent(workshop.id)}`} class="workshop-link">
                    {workshop.title}
                  </Link>
                  <span class="meta">
                    {workshop.owner.name} · {workshop.state === 'archived' ? 'archived' : 'running'} · created{' '}
                    {dayOf(workshop.created_at)}
                  </span>
                </div>
                <div class="row-actions">
                  {workshop.state === 'running' ? (
                    <button type="button" onClick={() => void setState(workshop, 'archived')}>
                      Archive<span class="visually-hidden"> {workshop.title}</span>
                    </button>
                  ) : (
                    <button type="button" onClick={() => void setState(workshop, 'running')}>
                      Reopen<span class="visually-hidden"> {workshop.title}</span>
                    </button>
                  )}
                  <ConfirmButton
                    label={`Delete`}
                    question={`Delete “${workshop.title}” and everything in it?`}
                    confirm="Delete for good"
                    onConfirm={() => remove(workshop)}
                  />
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {organizations.value.length > 0 && (
        <section class="panel" aria-labelledby="organizations-title">
          <h2 id="organizations-title">Your organizations</h2>
          <ul class="organization-list">
            {organizations.value.map((organization) => (
              <li key={organization.id} data-organization={organization.id}>
                <Link href={`/organizations/${encodeURIComponent(organization.id)}`}>{organization.name}</Link>
                <span class="meta"> · settings and API tokens</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}

/** An account whose address is not confirmed yet: it can ask for the mail again. */
function Unconfirmed() {
  const action = useAction();
  const sent = useSignal(false);
  return (
    <div class="notice" role="status">
      Confirm your address from the mail we sent you.{' '}
      {sent.value ? (
        'A new mail is on its way.'
      ) : (
        <button
          type="button"
          class="link"
          onClick={() =>
            void action.run(async () => {
              await api.post('/v1/user/me/confirmation');
              sent.value = true;
            })
          }
        >
          Send it again
        </button>
      )}
      <Problem action={action} />
    </div>
  );
}
