/*
 * The live workshop screen (`/screen/<workshop_id>`), built from the client SDK's public entry
 * points only: the REST client signs in and reads the canvas's size, `openWorkshop` keeps the
 * workshop's state current, `openCanvas` gives the zones and where the canvas placed the clusters.
 */
import { ApiError, createClient } from 'workshop-sdk';
import { openCanvas, type WorkshopCanvas } from 'workshop-sdk/canvas';
import { openWorkshop, timerRemainingMs, type LiveWorkshop, type WorkshopState } from 'workshop-sdk/live';
import { boardOf, scoresVisible, screenView, votingOpen } from '../shared/board';
import { codeText, joinAddress } from '../shared/invite';
import { t } from '../shared/i18n';
import { Authors } from './authors';
import { qrElement } from '../shared/qr';
import { followWorkshop, onLanguageChange, sayFrame, sentenceWith, startLanguage } from './language';
import { renderFrame, renderTimer } from './render';
import { forgetToken, keepToken, takeToken, tokenIsLent } from './token';

const workshopId = decodeURIComponent(location.pathname.split('/').pop() ?? '');
const api = createClient({ baseUrl: location.origin });
/** How often the countdown is redrawn; a quarter second keeps the seconds turning on time. */
const TICK_MS = 250;
/** The wait before trying again to open a workshop the server did not answer for. */
const RETRY_MS = 2_000;
/** The service's public address, handed over by the server in a `<meta>` (the policy allows no inline script). */
const PUBLIC_URL = document.querySelector<HTMLMetaElement>('meta[name="public-url"]')?.content || location.origin;

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** What the notice and the sign-in form's status say, kept as words to say (again, after a change of language). */
let notice: () => string = () => t('screen.loading');
let signInStatus: () => string = () => '';

function showNotice(say: () => string): void {
  notice = say;
  byId('notice').textContent = say();
  byId('notice').hidden = false;
}

function showSignIn(say: () => string = () => ''): void {
  document.body.dataset.status = 'signed-out';
  byId('screen').hidden = true;
  byId('notice').hidden = true;
  byId('sign-in').hidden = false;
  setSignInStatus(say);
}

function setSignInStatus(say: () => string): void {
  signInStatus = say;
  byId('sign-in-status').textContent = say();
}

onLanguageChange(() => {
  sayFrame();
  byId('notice').textContent = notice();
  byId('sign-in-status').textContent = signInStatus();
});

byId<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const email = byId<HTMLInputElement>('email').value;
  const password = byId<HTMLInputElement>('password').value;
  setSignInStatus(() => '');
  api.post('/v1/auth/login', { body: { email, password } }).then(
    ({ token }) => {
      keepToken(token);
      byId('sign-in').hidden = true;
      void open(token);
    },
    (err: unknown) => {
      // The server's refusal is in the browser's language (its Accept-Language), as it said it.
      setSignInStatus(() => (err instanceof ApiError ? err.message : t('screen.sign_in.unreachable')));
    },
  );
});

byId('sign-out').addEventListener('click', () => {
  const lent = tokenIsLent();
  forgetToken();
  // A token lent by the console stays the console's: only forgotten here. One the screen signed in
  // with itself ends on the server too; the page starts over, signed out, whatever the answer.
  if (lent) location.reload();
  else void api.post('/v1/auth/logout').finally(() => location.reload());
});

async function open(token: string): Promise<void> {
  api.setToken(token);
  showNotice(() => t('screen.connecting'));
  let live: LiveWorkshop;
  try {
    live = await openWorkshop(api, workshopId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      forgetToken();
      return showSignIn(() => t('screen.sign_in.session_ended'));
    }
    if (err instanceof ApiError && err.status === 404) return showNotice(() => t('screen.not_found'));
    showNotice(() => t('screen.unreachable'));
    setTimeout(() => void open(token), RETRY_MS);
    return;
  }
  // The workshop's language before any of its words; followed when it changes.
  await followWorkshop(live.state.workshop.language);
  live.subscribe((state) => void followWorkshop(state.workshop.language));
  const canvas = openCanvas(api, workshopId, { WebSocket: window.WebSocket, maxBackoffTime: RETRY_MS });
  show(live, canvas);
  invite(live);
}

/**
 * While people may join from a phone (the workshop runs and takes guests: the participant page
 * joins as a guest), a facilitator's screen shows the join address, a QR code of the workshop's
 * join link, and the code. Both are the facilitators' to read: a participant's screen asks for
 * neither and shows no invitation. They are read again when the workshop runs again after an
 * archive, as reopening may draw a new code (and so a new link).
 */
function invite(live: LiveWorkshop): void {
  let code: string | null = null;
  let link: string | null = null;
  let drawnLink: string | null = null;
  let running: boolean | null = null;
  const read = () =>
    api.get('/v1/workshops/{workshop_id}/access_code', { params: { path: { workshop_id: workshopId } } }).then(
      (found) => {
        // Digits only, whether the server sends them grouped (`123-456-789`) or not.
        code = found.access_code.replace(/\D/g, '');
        link = found.join_url;
        draw();
      },
      (err: unknown) => {
        // Not a facilitator (or no longer a member): no invitation. Anything else is asked again.
        if (err instanceof ApiError && (err.status === 403 || err.status === 404 || err.status === 401)) return;
        setTimeout(() => void read(), RETRY_MS);
      },
    );
  const draw = () => {
    const shown = running === true && link !== null;
    byId('invite').hidden = !shown;
    if (!shown || link === drawnLink) return;
    drawnLink = link;
    byId('invite-qr').replaceChildren(qrElement(link!, t('screen.invite.qr_label', { link: link! })));
    const address = byId('invite-address');
    const digits = byId('invite-code');
    address.textContent = joinAddress(PUBLIC_URL);
    digits.textContent = codeText(code!);
    byId('invite-how').replaceChildren(...sentenceWith('screen.invite.how', { address, code: digits }));
  };
  // Said again in a new language: the next draw makes the invitation anew.
  onLanguageChange(() => {
    drawnLink = null;
    draw();
  });
  live.subscribe((state) => {
    const now = state.workshop.state !== 'archived' && state.workshop.allow_guests && facilitates(state);
    if (now === running) return;
    running = now;
    if (running) void read();
    draw();
  });
}

/** Draws the workshop and keeps drawing it: at every live change, canvas change and clock tick. */
function show(live: LiveWorkshop, canvas: WorkshopCanvas): void {
  let background: { cols: number; rows: number } | null = null;
  let drawScheduled = false;
  let wasLive = false;
  let ended = false;
  const authors = new Authors(
    api,
    workshopId,
    () => schedule(),
    () => facilitates(live.state),
  );

  // Asked only when the workshop has a canvas (`has_canvas`, which the live state keeps current).
  const readBackground = () => {
    if (!live.state.workshop.has_canvas) return setBackground(null);
    return api.get('/v1/workshops/{workshop_id}/canvas', { params: { path: { workshop_id: workshopId } } }).then(
      (found) => setBackground(found.background),
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 404) setBackground(null);
      },
    );
  };
  const setBackground = (next: typeof background) => {
    background = next;
    schedule();
  };

  const draw = () => {
    drawScheduled = false;
    const { state } = live;
    if (state.status === 'closed') return closed(state.error);
    const { view, following } = screenView(state, facilitates(state));
    // A step that shows votes again has the live state read the cards again (a participant's
    // carried only their own votes), so the scores shown are everyone's once that answer is in.
    const scoresShown = scoresVisible(state);
    const board = boardOf({
      cards: state.cards,
      view,
      scoresShown,
      placements: canvas.placements(),
      zones: canvas.zones(),
      background,
    });
    renderFrame({
      state,
      board,
      following,
      scoresShown,
      contentShown: view.card_sub_view === 'content',
      votingOpen: votingOpen(state),
      authorOf: (card) => authors.nameOf(card),
      byFacilitator: (card) => authors.byFacilitator(card),
    });
    renderTimer(state, timerRemainingMs(state));

    // A canvas the server refused for good (its error says why) is left out rather than waited for.
    const connected = state.status === 'live' && (canvas.provider.wsconnected || canvas.error !== null);
    document.body.dataset.status = connected ? 'live' : state.status === 'connecting' ? 'connecting' : 'reconnecting';
    byId('connection').hidden = connected;
    byId('screen').classList.toggle('stale', !connected);
    // Back after a drop: a catch-up loaded over REST passes no events to listeners, so the canvas
    // size and the member list (whose facilitators' cards a private step shows) are read again.
    if (connected && !wasLive) {
      void readBackground();
      authors.membersChanged();
    }
    wasLive = connected;
  };
  const schedule = () => {
    if (drawScheduled) return;
    drawScheduled = true;
    queueMicrotask(draw);
  };

  onLanguageChange(schedule);

  const closed = (error: ApiError | null) => {
    if (ended) return;
    ended = true;
    clearInterval(ticking);
    canvas.destroy();
    byId('screen').hidden = true;
    if (error?.status === 401) {
      forgetToken();
      return showSignIn(() => t('screen.sign_in.session_ended'));
    }
    document.body.dataset.status = 'closed';
    showNotice(() => (error?.status === 404 ? t('screen.deleted') : t('screen.closed')));
  };

  byId('notice').hidden = true;
  byId('screen').hidden = false;
  live.subscribe(schedule);
  live.on('workshop:event', ({ action }) => {
    if (action === 'addCanvas' || action === 'removeCanvas') void readBackground();
    if (action === 'addMember' || action === 'updateMember') authors.membersChanged();
  });
  canvas.observe(schedule);
  canvas.provider.on('status', schedule);
  const ticking = setInterval(() => renderTimer(live.state, timerRemainingMs(live.state)), TICK_MS);
}

void startLanguage()
  .then(takeToken)
  .then((token) => (token ? open(token) : showSignIn()));

/**
 * Whether the screen's reader acts as a facilitator: only facilitators get each participant's
 * progress with the counts. What only they may read (the access code, the member list) is asked
 * for on their screens alone, so a participant's screen gets no refusal.
 */
function facilitates(state: WorkshopState): boolean {
  return state.participation.users !== undefined;
}
