import { ApiError, createClient, type WorkshopClient } from 'workshop-sdk';
import { codeText } from '../shared/invite';
import { markInvalid, refusalText } from './forms';
import { forgetToken, keepToken, keptWorkshops } from '../shared/participant-token';

/*
 * `/join`: a name and the access code (filled from `/join#code=123456789`), or a name alone when
 * the page was opened from the workshop's join link (`/join#key=…`, the screen's QR code), then in
 * as a guest (`POST /v1/workshops/join/guest`): the token is kept for that workshop and the page
 * becomes `/w/<workshop_id>`. The link's key is never refused for wrong codes others typed from
 * the same address; a link that no longer works (the workshop has a new code, or ended) falls
 * back to typing the code.
 */

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** What a refused join says to the person. */
const refusedJoin = (err: unknown) =>
  refusalText(
    err,
    {
      not_found: 'No running workshop has this code. Check the digits on the screen.',
      guests_not_allowed: 'This workshop does not take guests. Ask the facilitator for an invitation.',
      attendee_limit_reached: 'This workshop is full.',
    },
    'The server cannot be reached. Check your connection and try again.',
  );

export function showJoin(api: WorkshopClient, entered: (workshopId: string) => void): void {
  document.body.dataset.status = 'join';
  document.title = 'Join the workshop';
  byId('notice').hidden = true;
  byId('join').hidden = false;
  const code = byId<HTMLInputElement>('code');
  const name = byId<HTMLInputElement>('name');
  const status = byId('join-status');
  const button = byId<HTMLButtonElement>('join-button');

  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = (fragment.get('code') ?? '').replace(/\D/g, '');
  if (given) code.value = codeText(given);
  let joinKey = fragment.get('key') || null;
  byId('code-field').hidden = joinKey !== null;
  if (joinKey !== null) {
    byId('join-notice').textContent = "You came with the workshop's link: your name is all it takes.";
    // The link names its workshop; one that no longer works says so when joining.
    api.get('/v1/workshops/join/{join_key}', { params: { path: { join_key: joinKey } } }).then(
      ({ title }) => {
        byId('join-title').textContent = `Join “${title}”`;
        document.title = `Join “${title}”`;
      },
      () => undefined,
    );
  }
  if (fragment.get('session') === 'ended') byId('join-notice').textContent = 'Your session has ended: join again.';
  (given || joinKey !== null ? name : code).focus();
  offerKept();

  const invalid = (input: HTMLInputElement, message: string) => markInvalid(status, input, message);
  byId<HTMLFormElement>('join-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const digits = code.value.replace(/\D/g, '');
    const person = name.value.trim();
    code.removeAttribute('aria-invalid');
    name.removeAttribute('aria-invalid');
    if (joinKey === null && !digits) return invalid(code, 'Enter the access code.');
    if (!person) return invalid(name, 'Enter your name.');
    status.textContent = '';
    button.disabled = true;
    button.textContent = 'Joining…';
    const by = joinKey !== null ? { join_key: joinKey } : { access_code: digits };
    api.post('/v1/workshops/join/guest', { body: { ...by, name: person } }).then(
      ({ token, workshop }) => {
        keepToken(workshop.id, token);
        entered(workshop.id);
      },
      (err: unknown) => {
        button.disabled = false;
        button.textContent = 'Join';
        if (joinKey !== null && err instanceof ApiError && err.code === 'not_found') {
          // An old link: the code on the screen still lets the person in.
          joinKey = null;
          byId('code-field').hidden = false;
          byId('join-notice').textContent = '';
          return invalid(
            code,
            'This link no longer works: the workshop has a new code, or has ended. Type the code shown on the screen.',
          );
        }
        status.textContent = refusedJoin(err);
        if (err instanceof ApiError && err.code === 'not_found') code.setAttribute('aria-invalid', 'true');
      },
    );
  });
}

/**
 * The workshops this phone is already in, as links back: scanning the screen's code again should
 * not make the person a second guest. A token the server no longer knows is forgotten.
 */
function offerKept(): void {
  for (const { workshopId, token } of keptWorkshops()) {
    const api = createClient({ baseUrl: location.origin, token });
    api.get('/v1/workshops/{id}', { params: { path: { id: workshopId } } }).then(
      (workshop) => {
        const link = document.createElement('a');
        link.href = `/w/${encodeURIComponent(workshopId)}`;
        link.textContent = `Continue in “${workshop.title}”`;
        const item = document.createElement('li');
        item.append(link);
        byId('kept-list').append(item);
        byId('kept').hidden = false;
      },
      (err: unknown) => {
        if (err instanceof ApiError && (err.status === 401 || err.status === 404)) forgetToken(workshopId);
      },
    );
  }
}
