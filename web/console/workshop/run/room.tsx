/*
 * Who is in the room and how far they are: presence (who is connected now) and participation
 * (docs/api.md#participation: how many voted, spent their votes, rated), both from the live state.
 */
import type { WorkshopState } from 'workshop-sdk/live';
import { Panel } from '../../forms';
import type { WorkshopScope } from '../context';

export function Room({ scope }: { scope: WorkshopScope }) {
  const { presence, participation } = scope.state.value;
  return (
    <Panel title="The room" class="run-room">
      <Participation participation={participation} />
      <h3>Here now</h3>
      <p class="run-presence-count">
        {presence.count === 1 ? '1 person connected' : `${presence.count} people connected`}
      </p>
      {presence.users.length > 0 && (
        <ul class="run-presence">
          {presence.users.map((user) => (
            <li key={user.id}>
              {user.name}
              {user.guest && <span class="meta"> (guest)</span>}
            </li>
          ))}
        </ul>
      )}
      {presence.count > presence.users.length && (
        <p class="hint">and {presence.count - presence.users.length} more not listed</p>
      )}
    </Panel>
  );
}

function Participation({ participation }: { participation: WorkshopState['participation'] }) {
  const { participants, voted_any, voted_all, rated_any, users } = participation;
  const of = (count: number) => `${count} of ${participants}`;
  return (
    <>
      <h3>Participation</h3>
      {participants === 0 ? (
        <p class="empty">No participant has joined yet.</p>
      ) : (
        <ul class="run-participation" aria-live="polite">
          <li>{participants === 1 ? '1 participant' : `${participants} participants`} in the workshop</li>
          <li>{of(voted_any)} have voted</li>
          <li>{of(voted_all)} have used all their votes</li>
          <li>{of(rated_any)} have rated</li>
        </ul>
      )}
      {users && users.length > 0 && (
        <details class="run-participants">
          <summary>Each participant</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Votes used</th>
                <th scope="col">Ratings</th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <tr key={user.id}>
                  <th scope="row">
                    {user.name}
                    {user.guest && <span class="meta"> (guest)</span>}
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
