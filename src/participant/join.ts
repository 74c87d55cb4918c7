import { ApiError, createClient, type WorkshopClient } from '../../client-sdk/src/index';
import { codeText } from '../screen/invite';
import { markInvalid, refusalText } from './forms';
import { forgetToken, keepToken, keptWorkshops } from './token';

/*
 * `/join`: the access code (filled from `/join#code=123456789`, the screen's QR code) and a name,
 * then in as a guest (`POST /v1/workshops/join/guest`): the token is kept for that workshop and
 * the page becomes `/w/<workshop_id>`.
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
  if (fragment.get('session') === 'ended') byId('join-notice').textContent = 'Your session has ended: join again.';
  (given ? name : code).focus();
  offerKept();

  const invalid = (input: HTMLInputElement, message: string) => markInvalid(status, input, message);
  byId<HTMLFormElement>('join-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const digits = code.value.replace(/\D/g, '');
    const person = name.value.trim();
    code.removeAttribute('aria-invalid');
    name.removeAttribute('aria-invalid');
    if (!digits) return invalid(code, 'Enter the access code.');
    if (!person) return invalid(name, 'Enter your name.');
    status.textContent = '';
    button.disabled = true;
    button.textContent = 'Joining…';
    api.post('/v1/workshops/join/guest', { body: { access_code: digits, name: person } }).then(
      ({ token, workshop }) => {
        keepToken(workshop.id, token);
        entered(workshop.id);
      },
      (err: unknown) => {
        button.disabled = false;
        button.textContent = 'Join';
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
