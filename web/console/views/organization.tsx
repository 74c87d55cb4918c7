/*
 * `/organizations/<id>`: an organization's settings, for its admins (docs/pages.md#an-organizations-settings).
 * One section each: the organization (name, avatar), its members and pending seats, its API
 * tokens, its webhooks and their deliveries, and single sign-on. A member who is no admin is told
 * who manages it; a session that single sign-on keeps out is told why, and an admin is offered the
 * way out the service keeps open (turning the requirement off).
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError } from 'workshop-sdk';
import { api, problemText } from '../api';
import { Panel } from '../forms';
import { NotOpen } from '../not-open';
import { ApiTokens } from '../organization/api-tokens';
import { Members } from '../organization/members';
import { Profile } from '../organization/profile';
import { KeptOut, SingleSignOn } from '../organization/sso';
import type { Member, Organization } from '../organization/types';
import { Webhooks } from '../organization/webhooks';
import { Link } from '../router';
import { forget, me } from '../session';
import { t } from '../i18n';
import { pageIntl } from '../../shared/i18n';

/** Each section's anchor and title, made when drawn, in the language shown then. */
const sections = (): Array<[string, string]> => [
  ['organization-profile', t('console.organization.title')],
  ['members', t('console.organization.members.title')],
  ['api-tokens', t('console.organization.tokens.title')],
  ['webhooks', t('console.organization.webhooks.title')],
  ['single-sign-on', t('console.organization.sso.title')],
];

export function OrganizationSettings({ id }: { id: string }) {
  const organization = useSignal<Organization | null>(null);
  const members = useSignal<Member[] | null>(null);
  const problem = useSignal('');
  const keptOut = useSignal(false);
  /** A refusal that took this person's admin controls away, said above what the page shows now. */
  const refused = useSignal('');
  const path = { params: { path: { id } } };

  /** Reads the organization and its members again; a session single sign-on keeps out is told so. */
  const open = async () => {
    try {
      const [found, seats] = await Promise.all([
        api.get('/v1/organizations/{id}', path),
        api.get('/v1/organizations/{id}/members', path),
      ]);
      keptOut.value = false;
      organization.value = found;
      members.value = seats;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return forget();
      if (err instanceof ApiError && err.code === 'sso_required') {
        keptOut.value = true;
        return;
      }
      problem.value =
        err instanceof ApiError && err.status === 404 ? t('console.organization.not_found') : problemText(err);
    }
  };
  useEffect(() => {
    void open();
  }, [id]);

  if (keptOut.value) return <KeptOut organizationId={id} onReopen={open} />;
  const found = organization.value;
  const seats = members.value;
  if (problem.value || !found || !seats)
    return (
      <NotOpen
        title={t('console.organization.title')}
        problem={problem.value}
        opening={t('console.organization.opening')}
      />
    );

  const email = me.value?.email?.toLowerCase();
  const mine = seats.find((seat) => !seat.pending && seat.email.toLowerCase() === email);
  const admins = seats.filter((seat) => seat.role === 'admin' && !seat.pending).map((seat) => seat.name);
  return (
    <main class="organization">
      <p class="crumbs">
        <Link href="/">{t('console.title')}</Link>
      </p>
      <h1 class="organization-title">
        {found.avatar_url && <img class="organization-avatar-small" src={found.avatar_url} alt="" />}
        {found.name}
      </h1>
      {mine?.role !== 'admin' && refused.value && (
        <p class="problem" role="alert">
          {refused.value}
        </p>
      )}
      {mine?.role !== 'admin' ? (
        <p class="empty not-admin">
          {[
            t('console.organization.not_admin', { member: mine ? 'yes' : 'no' }),
            ...(admins.length > 0 ? [t('console.organization.ask', { names: listText(admins) })] : []),
          ].join(' ')}
        </p>
      ) : (
        <>
          <nav class="organization-sections" aria-label={t('console.organization.sections')}>
            {sections().map(([anchor, title]) => (
              <a key={anchor} href={`#${anchor}`}>
                {title}
              </a>
            ))}
          </nav>
          <Panel title={t('console.organization.title')} id="organization-profile">
            <Profile organization={found} onSaved={(next) => (organization.value = next)} />
          </Panel>
          <Panel title={t('console.organization.members.title')} id="members">
            <Members
              organization={found}
              members={seats}
              myEmail={email ?? ''}
              onChange={open}
              onNoLongerAdmin={(words) => (refused.value = words)}
            />
          </Panel>
          <Panel title={t('console.organization.tokens.title')} id="api-tokens">
            <ApiTokens organizationId={id} />
          </Panel>
          <Panel title={t('console.organization.webhooks.title')} id="webhooks">
            <Webhooks organizationId={id} />
          </Panel>
          <Panel title={t('console.organization.sso.title')} id="single-sign-on">
            <SingleSignOn organization={found} onSaved={open} />
          </Panel>
        </>
      )}
    </main>
  );
}

/** "Ada", "Ada or Bea", "Ada, Bea, or Cy", as `Intl` lists them in the console's language. */
function listText(names: string[]): string {
  return new Intl.ListFormat(pageIntl(), { type: 'disjunction' }).format(names);
}
