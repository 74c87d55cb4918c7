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
import { rich, t } from '../i18n';
import { Link } from '../router';
import { me } from '../session';
import { CreateWorkshop, type Organization } from './create-workshop';
import { dayOf } from '../dates';

type Role = '' | 'facilitator' | 'attendee';
/** A row's title after its button's word, read out but not shown: which workshop the button acts on. */
const hidden = (words: string) => <span class="visually-hidden">{words}</span>;
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
      <h1>{t('console.home.title')}</h1>
      {me.value && me.value.confirmed_at === null && <Unconfirmed />}
      <CreateWorkshop organizations={organizations.value} workshops={workshops.value} />
      <section class="panel" aria-labelledby="list-title">
        <h2 id="list-title">{t('console.home.list_title')}</h2>
        <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
          <label>
            {t('console.home.filters.search')}
            <input type="search" value={search.value} onInput={(e) => (search.value = e.currentTarget.value)} />
          </label>
          <label>
            {t('console.home.filters.role')}
            <select value={role.value} onChange={(e) => (role.value = e.currentTarget.value as Role)}>
              <option value="">{t('console.home.filters.role_any')}</option>
              <option value="facilitator">{t('console.home.filters.facilitating')}</option>
              <option value="attendee">{t('console.home.filters.taking_part')}</option>
            </select>
          </label>
          <label>
            {t('console.home.filters.state')}
            <select value={state.value} onChange={(e) => (state.value = e.currentTarget.value as State)}>
              <option value="running">{t('console.home.filters.running')}</option>
              <option value="archived">{t('console.home.filters.archived')}</option>
              <option value="">{t('console.home.filters.state_any')}</option>
            </select>
          </label>
          <label>
            {t('console.home.filters.owner')}
            <select value={owner.value} onChange={(e) => (owner.value = e.currentTarget.value)}>
              <option value="">{t('console.home.filters.anyone')}</option>
              {me.value && <option value={me.value.id}>{t('console.home.filters.mine')}</option>}
              {organizations.value.map((organization) => (
                <option key={organization.id} value={organization.id}>
                  {organization.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('console.home.filters.created_from')}
            <input type="date" value={since.value} onInput={(e) => (since.value = e.currentTarget.value)} />
          </label>
          <label>
            {t('console.home.filters.created_until')}
            <input type="date" value={until.value} onInput={(e) => (until.value = e.currentTarget.value)} />
          </label>
        </form>
        <Problem action={load} />
        <Problem action={change} />
        {workshops.value === null ? (
          <p role="status">{t('console.loading')}</p>
        ) : shown.value.length === 0 ? (
          <p class="empty">{t('console.home.none')}</p>
        ) : (
          <ul class="workshop-list">
            {shown.value.map((workshop) => (
              <li key={workshop.id} class="workshop-row" data-workshop={workshop.id}>
                <div class="workshop-row-text">
                  <Link href={`/workshops/${encodeURIComponent(workshop.id)}`} class="workshop-link">
                    {workshop.title}
                  </Link>
                  <span class="meta">
                    {t('console.home.row_meta', {
                      owner: workshop.owner.name,
                      state: workshop.state,
                      date: dayOf(workshop.created_at),
                    })}
                  </span>
                </div>
                <div class="row-actions">
                  {workshop.state === 'running' ? (
                    <button type="button" onClick={() => void setState(workshop, 'archived')}>
                      {rich('console.home.archive', { title: workshop.title, hidden: hidden })}
                    </button>
                  ) : (
                    <button type="button" onClick={() => void setState(workshop, 'running')}>
                      {rich('console.home.reopen', { title: workshop.title, hidden: hidden })}
                    </button>
                  )}
                  <ConfirmButton
                    label={t('console.home.delete')}
                    question={t('console.home.delete_question', { title: workshop.title })}
                    confirm={t('console.home.delete_confirm')}
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
          <h2 id="organizations-title">{t('console.home.organizations')}</h2>
          <ul class="organization-list">
            {organizations.value.map((organization) => (
              <li key={organization.id} data-organization={organization.id}>
                <Link href={`/organizations/${encodeURIComponent(organization.id)}`}>{organization.name}</Link>
                <span class="meta"> {t('console.home.organization_meta')}</span>
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
  // The sentence and what follows it, a space apart, as separate sentences are.
  const ask = `${t('console.home.unconfirmed')} `;
  return (
    <div class="notice" role="status">
      {ask}
      {sent.value ? (
        t('console.home.unconfirmed_sent')
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
          {t('console.home.unconfirmed_again')}
        </button>
      )}
      <Problem action={action} />
    </div>
  );
}
