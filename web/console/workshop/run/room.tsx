/*
 * Who is in the room and how far they are: presence (who is connected now) and participation
 * (docs/api.md#participation: how many voted, spent their votes, rated), both from the live state.
 */
import type { WorkshopState } from 'workshop-sdk/live';
import { Panel } from '../../forms';
import type { WorkshopScope } from '../context';
import { t } from '../../i18n';

export function Room({ scope }: { scope: WorkshopScope }) {
  const { presence, participation } = scope.state.value;
  return (
    <Panel title={t('console.run.room.title')} class="run-room">
      <Participation participation={participation} />
      <h3>{t('console.run.room.here_now')}</h3>
      <p class="run-presence-count">{t('console.run.room.connected', { count: presence.count })}</p>
      {presence.users.length > 0 && (
        <ul class="run-presence">
          {presence.users.map((user) => (
            <li key={user.id}>
              {user.name}
              {user.guest && <span class="meta"> {t('console.run.room.guest')}</span>}
            </li>
          ))}
        </ul>
      )}
      {presence.count > presence.users.length && (
        <p class="hint">{t('console.run.room.more', { count: presence.count - presence.users.length })}</p>
      )}
    </Panel>
  );
}

function Participation({ participation }: { participation: WorkshopState['participation'] }) {
  const { participants, voted_any, voted_all, rated_any, users } = participation;
  return (
    <>
      <h3>{t('console.run.room.participation')}</h3>
      {participants === 0 ? (
        <p class="empty">{t('console.run.room.no_participant')}</p>
      ) : (
        <ul class="run-participation" aria-live="polite">
          <li>{t('console.run.room.participants', { count: participants })}</li>
          <li>{t('console.run.room.voted', { count: voted_any, total: participants })}</li>
          <li>{t('console.run.room.voted_all', { count: voted_all, total: participants })}</li>
          <li>{t('console.run.room.rated', { count: rated_any, total: participants })}</li>
        </ul>
      )}
      {users && users.length > 0 && (
        <details class="run-participants">
          <summary>{t('console.run.room.each')}</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('console.run.room.name')}</th>
                <th scope="col">{t('console.run.room.votes_used')}</th>
                <th scope="col">{t('console.run.room.ratings')}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr key={user.id}>
                  <th scope="row">
                    {user.name}
                    {user.guest && <span class="meta"> {t('console.run.room.guest')}</span>}
                  </th>
                  <td>{user.votes_used}</td>
                  <td>{user.ratings}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </>
  );
}
