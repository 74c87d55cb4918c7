import { ApiError, createClient, type WorkshopClient } from 'workshop-sdk';
import { pageLanguage, t } from '../shared/i18n';
import { CODE_DIGITS, codeDigits, codeText } from '../shared/invite';
import { markInvalid, refusalText } from './forms';
import { offerLanguages } from './language';
import { forgetToken, keepToken, keptWorkshops } from '../shared/participant-token';
import { deviceTimeZone } from '../shared/time-zone';

/*
 * `/join`: a name and the access code (filled from `/join#code=123456789`), or a name alone when
 * the page was opened from the workshop's join link (`/join#key=…`, the screen's QR code), then in
 * as a guest (`POST /v1/workshops/join/guest`): the token is kept for that workshop and the page
 * becomes `/w/<workshop_id>`. The link's key is never refused for wrong codes others typed from
 * the same address; a link that no longer works (the workshop has a new code, or ended) falls
 * back to typing the code. Everything it says comes from the catalogs, and is said again when the
 * person picks another language (docs/i18n.md).
 */

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** What a refused join says to the person. */
const refusedJoin = (err: unknown) =>
  refusalText(
    err,
    {
      not_found: t('participant.join.refused.not_found'),
      guests_not_allowed: t('participant.join.refused.guests_not_allowed'),
      attendee_limit_reached: t('participant.join.refused.attendee_limit_reached'),
    },
    t('participant.join.offline'),
  );

/** What the view shows beyond its fixed words, kept as what to say rather than said once. */
interface Said {
  /** The workshop the link names, once known. */
  title: string | null;
  notice: (() => string) | null;
  failure: (() => string) | null;
  joining: boolean;
  /** The links back to the workshops this phone is in, with their titles. */
  kept: { link: HTMLAnchorElement; title: string }[];
}

/** Says every word of the join view in the page's language. */
function sayAll(said: Said): void {
  const heading =
    said.title === null ? t('participant.join.title') : t('participant.join.title_named', { title: said.title });
  byId('join-title').textContent = heading;
  document.title = heading;
  byId('kept-title').textContent = t('participant.join.kept_title');
  byId('code-label').textContent = t('participant.join.code_label');
  byId('code-hint').textContent = t('participant.join.code_hint', { digits: CODE_DIGITS });
  byId('name-label').textContent = t('participant.join.name_label');
  byId('name-hint').textContent = t('participant.join.name_hint');
  byId('join-button').textContent = t(said.joining ? 'participant.join.submitting' : 'participant.join.submit');
  byId('join-notice').textContent = said.notice?.() ?? '';
  byId('join-status').textContent = said.failure?.() ?? '';
  for (const { link, title } of said.kept) link.textContent = t('participant.join.continue_in', { title });
}

export function showJoin(api: WorkshopClient, entered: (workshopId: string) => void): void {
  document.body.dataset.status = 'join';
  byId('notice').hidden = true;
  byId('join').hidden = false;
  const code = byId<HTMLInputElement>('code');
  const name = byId<HTMLInputElement>('name');
  const status = byId('join-status');
  const button = byId<HTMLButtonElement>('join-button');
  const said: Said = { title: null, notice: null, failure: null, joining: false, kept: [] };
  const say = () => sayAll(said);
  offerLanguages(say);

  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = codeDigits(fragment.get('code') ?? '');
  if (given) code.value = codeText(given);
  let joinKey = fragment.get('key') || null;
  byId('code-field').hidden = joinKey !== null;
  if (joinKey !== null) {
    said.notice = () => t('participant.join.link_notice');
    // The link names its workshop; one that no longer works says so when joining.
    api.get('/v1/workshops/join/{join_key}', { params: { path: { join_key: joinKey } } }).then(
      ({ title }) => {
        said.title = title;
        say();
      },
      () => undefined,
    );
  }
  if (fragment.get('session') === 'ended') said.notice = () => t('participant.join.session_ended');
  say();
  (given || joinKey !== null ? name : code).focus();
  offerKept(said, say);

  const invalid = (input: HTMLInputElement, message: () => string) => {
    said.failure = message;
    markInvalid(status, input, message());
  };
  byId<HTMLFormElement>('join-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const digits = codeDigits(code.value);
    const person = name.value.trim();
    code.removeAttribute('aria-invalid');
    name.removeAttribute('aria-invalid');
    if (joinKey === null && !digits) return invalid(code, () => t('participant.join.enter_code'));
    if (!person) return invalid(name, () => t('participant.join.enter_name'));
    said.failure = null;
    status.textContent = '';
    button.disabled = true;
    said.joining = true;
    button.textContent = t('participant.join.submitting');
    const by = joinKey !== null ? { join_key: joinKey } : { access_code: digits };
    api.post('/v1/workshops/join/guest', { body: { ...by, name: person, time_zone: deviceTimeZone() } }).then(
      ({ token, workshop }) => {
        keepToken(workshop.id, token);
        entered(workshop.id);
      },
      (err: unknown) => {
        button.disabled = false;
        said.joining = false;
        button.textContent = t('participant.join.submit');
        if (joinKey !== null && err instanceof ApiError && err.code === 'not_found') {
          // An old link: the code on the screen still lets the person in.
          joinKey = null;
          byId('code-field').hidden = false;
          said.notice = null;
          byId('join-notice').textContent = '';
          return invalid(code, () => t('participant.join.link_dead'));
        }
        said.failure = () => refusedJoin(err);
        status.textContent = said.failure();
        if (err instanceof ApiError && err.code === 'not_found') code.setAttribute('aria-invalid', 'true');
      },
    );
  });
}

/**
 * The workshops this phone is already in, as links back: scanning the screen's code again should
 * not make the person a second guest. A token the server no longer knows is forgotten.
 */
function offerKept(said: Said, say: () => void): void {
  for (const { workshopId, token } of keptWorkshops()) {
    const api = createClient({ baseUrl: location.origin, token, acceptLanguage: pageLanguage });
    api.get('/v1/workshops/{id}', { params: { path: { id: workshopId } } }).then(
      (workshop) => {
        const link = document.createElement('a');
        link.href = `/w/${encodeURIComponent(workshopId)}`;
        said.kept.push({ link, title: workshop.title });
        const item = document.createElement('li');
        item.append(link);
        byId('kept-list').append(item);
        byId('kept').hidden = false;
        say();
      },
      (err: unknown) => {
        if (err instanceof ApiError && (err.status === 401 || err.status === 404)) forgetToken(workshopId);
      },
    );
  }
}
