/*
 * The People tab: the workshop's members with their roles, and invitations by mail. Both lists
 * follow the log (a join, a role changed, an invitation accepted), so they stay current without a
 * reload, as another facilitator changes them.
 */
import { Panel } from '../forms';
import type { WorkshopScope } from './context';
import { Invitations } from './people/invitations';
import { Members } from './people/members';
import { t } from '../i18n';

export function People({ scope }: { scope: WorkshopScope }) {
  return (
    <div class="people">
      <Panel title={t('console.people.members.title')}>
        <Members scope={scope} />
      </Panel>
      <Panel title={t('console.people.invitations.title')}>
        <Invitations scope={scope} />
      </Panel>
    </div>
  );
}
