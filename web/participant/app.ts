/*
 * The participant page, for a phone first (`/join`, then `/w/<workshop_id>`), built from the
 * client SDK's public entry points only: the REST client joins as a guest and writes, `openWorkshop`
 * keeps the workshop's state current. Writes go through an outbox that keeps them, each with its
 * own Idempotency-Key, until the server has answered.
 */
import { ApiError, createClient, type User } from 'workshop-sdk';
import { openWorkshop, type LiveWorkshop } from 'workshop-sdk/live';
import { offerAccount } from './account';
import type { CardActions } from './card-frame';
import { showJoin } from './join';
import { sayFrame, startLanguage } from './language';
import { pageLanguage, t } from '../shared/i18n';
import { announce, WorkshopPage } from './render';
import { named, ParticipantSession } from './session';
import { forgetToken, outboxKey, takeToken } from '../shared/participant-token';

// The API answers in the page's language, the one the person chose on it (`language.ts`).
const api = createClient({ baseUrl: location.origin, acceptLanguage: pageLanguage });
/** The wait before trying again to open a workshop the server did not answer for. */
const RETRY_MS = 2_000;
/** How often the countdown is redrawn. */
const TICK_MS = 250;
/** How long a refused write's message stays. */
const REFUSED_MS = 10_000;

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function showNotice(text: string): void {
  byId('workshop').hidden = true;
  byId('notice').textContent = text;
  byId('notice').hidden = false;
}

/** The token is no longer valid (logged out, expired): back to the join page, the workshop's traces gone. */
function sessionEnded(workshopId: string): void {
  forgetToken(workshopId);
  try {
    localStorage.removeItem(outboxKey(workshopId));
  } catch {
    // Nothing was stored.
  }
  location.replace('/join#session=ended');
}

async function enter(workshopId: string): Promise<void> {
  const token = takeToken(workshopId);
  if (!token) return location.replace('/join');
  api.setToken(token);
  sayFrame();
  showNotice(t('participant.frame.connecting'));
  let me: User;
  let live: LiveWorkshop;
  try {
    me = await api.get('/v1/user/me');
    live = await openWorkshop(api, workshopId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return sessionEnded(workshopId);
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) {
      forgetToken(workshopId);
      return showNotice(t('participant.frame.gone_join'));
    }
    showNotice(t('participant.frame.unreachable'));
    setTimeout(() => void enter(workshopId), RETRY_MS);
    return;
  }
  show(
    new ParticipantSession(api, workshopId, me.id, live, {
      changed: () => schedule(),
      refused: (text) => refused(text),
      ended: () => sessionEnded(workshopId),
    }),
  );
  offerAccount(api, workshopId, me, announce);
}

let schedule: () => void = () => undefined;
let refusedTimer: ReturnType<typeof setTimeout> | undefined;

function refused(text: string): void {
  const line = byId('refused');
  line.textContent = text;
  line.hidden = false;
  clearTimeout(refusedTimer);
  refusedTimer = setTimeout(() => (line.hidden = true), REFUSED_MS);
}

function show(session: ParticipantSession): void {
  const actions: CardActions = {
    vote: (card, direction) =>
      session.add(
        { kind: 'vote', cardId: card.id, direction },
        t(direction > 0 ? 'participant.outbox.label.vote_up' : 'participant.outbox.label.vote_down', {
          title: named(card),
        }),
      ),
    rate: (card, criterion, value) =>
      session.add(
        { kind: 'rate', cardId: card.id, criteriumId: criterion.id, value },
        t('participant.outbox.label.rate', { value, criterion: criterion.title, title: named(card) }),
      ),
    comment: (card, content) => {
      session.add(
        { kind: 'comment', cardId: card.id, content },
        t('participant.outbox.label.comment', { title: named(card) }),
      );
      announce(t('participant.announce.comment_added'));
    },
    openList: (card, list) => session.readCardList(list, card.id),
    addItem: (card, section, content) => {
      session.add(
        { kind: 'item', cardId: card.id, sectionId: section.id, content },
        t('participant.outbox.label.item', { section: section.title, title: named(card) }),
      );
      announce(t('participant.announce.item_added'));
    },
    attach: (card, file) => {
      if (session.attach(card, file)) announce(t('participant.announce.sending_file', { name: file.name }));
    },
    edit: (card, title) => {
      session.add(
        { kind: 'edit', cardId: card.id, title },
        t('participant.outbox.label.edit', { new_title: title, title: named(card) }),
      );
      announce(t('participant.announce.title_changed'));
    },
    remove: (card) => {
      session.add({ kind: 'delete', cardId: card.id }, t('participant.outbox.label.delete', { title: named(card) }));
      announce(t('participant.announce.deleting', { title: named(card) }));
    },
    announce,
  };
  const page = new WorkshopPage(session, actions);
  let drawScheduled = false;
  let ended = false;
  schedule = () => {
    if (drawScheduled) return;
    drawScheduled = true;
    queueMicrotask(() => {
      drawScheduled = false;
      const { state } = session.live;
      if (state.status !== 'closed') return page.draw();
      if (ended) return;
      ended = true;
      clearInterval(ticking);
      if (state.error?.status === 401) return sessionEnded(session.workshopId);
      forgetToken(session.workshopId);
      session.outbox.stop();
      showNotice(t(state.error?.status === 404 ? 'participant.frame.gone' : 'participant.frame.closed'));
    });
  };

  const clusterSelect = byId<HTMLSelectElement>('idea-cluster');
  const ideaTitle = byId<HTMLInputElement>('idea-title');
  byId<HTMLFormElement>('idea-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const title = ideaTitle.value.trim();
    const cluster = session.live.state.cards.find((card) => card.id === clusterSelect.value && card.type === 'cluster');
    if (!cluster) return announce(t('participant.frame.idea_hint'));
    if (!title) return ideaTitle.focus();
    session.add(
      { kind: 'card', type: 'idea', title, parent: cluster.id },
      t('participant.outbox.label.idea', { title, cluster: named(cluster) }),
    );
    ideaTitle.value = '';
    announce(t('participant.announce.idea_added'));
  });
  const clusterTitle = byId<HTMLInputElement>('cluster-title');
  byId<HTMLFormElement>('cluster-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const title = clusterTitle.value.trim();
    if (!title) return clusterTitle.focus();
    session.add(
      { kind: 'card', type: 'cluster', title, parent: null },
      t('participant.outbox.label.cluster', { title }),
    );
    clusterTitle.value = '';
    announce(t('participant.announce.cluster_added'));
  });
  byId('leave').addEventListener('click', () => {
    const waiting = session.outbox.items.length;
    const question =
      waiting > 0 ? t('participant.frame.leave_unsent', { count: waiting }) : t('participant.frame.leave_confirm');
    if (!confirm(question)) return;
    session.outbox.stop();
    // Ends the guest's token on the server too; the page goes back to joining whatever the answer.
    void api.post('/v1/auth/logout').finally(() => {
      forgetToken(session.workshopId);
      location.replace('/join');
    });
  });
  window.addEventListener('online', schedule);
  window.addEventListener('offline', schedule);

  byId('notice').hidden = true;
  byId('workshop').hidden = false;
  page.draw();
  const ticking = setInterval(() => page.drawTimer(session.live.state), TICK_MS);
}

/** The page's language first (its words for the join view), then the workshop or the join view. */
async function start(): Promise<void> {
  await startLanguage();
  const inWorkshop = /^\/w\/([^/]+)\/?$/.exec(location.pathname);
  if (inWorkshop) return enter(decodeURIComponent(inWorkshop[1]!));
  showJoin(api, (workshopId) => {
    // In place, without loading the page again: the workshop's address from here on.
    history.replaceState(null, '', `/w/${encodeURIComponent(workshopId)}`);
    byId('join').hidden = true;
    void enter(workshopId);
  });
}
void start();
