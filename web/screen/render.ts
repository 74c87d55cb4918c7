import type { Card, Participation } from 'workshop-sdk';
import { inLobby, type WorkshopState } from 'workshop-sdk/live';
import type { Board, Stack, ZoneArea } from '../shared/board';
import { t } from '../shared/i18n';
import { clockText, showPrivacy } from '../shared/step';

/*
 * The screen's DOM, rebuilt from a board and the live state at each change. Every text that comes
 * from people (titles, names, instructions) is set with `textContent`: never parsed as markup.
 */

export interface Frame {
  state: WorkshopState;
  board: Board;
  following: boolean;
  scoresShown: boolean;
  /** Card contents under the titles (the view's `card_sub_view` is `content`). */
  contentShown: boolean;
  votingOpen: boolean;
  /** The author's name to show with a card, or null for none (hidden by its step, or not known). */
  authorOf(card: Card): string | null;
  /** Whether a card is known to be a facilitator's: the only cards the room reads while the step keeps cards private. */
  byFacilitator(card: Card): boolean;
}

/** A frame as drawn: with which cards stand as blank places. */
interface Drawing extends Frame {
  hidden(card: Card): boolean;
}

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function renderFrame(input: Frame): void {
  const { state, board } = input;
  document.title = state.step
    ? t('screen.title_step', { step: state.step.name, workshop: state.workshop.title })
    : state.workshop.title;
  const lobby = inLobby(state);
  byId('workshop-title').textContent = state.workshop.title;
  byId('step-name').textContent = state.step?.name ?? (lobby ? t('screen.step.not_started') : t('screen.step.waiting'));
  renderLobby(lobby);
  byId('step-instructions').textContent = state.step?.instructions ?? '';
  // What the current step lets participants see of each other, said on the wall too.
  const privacy = showPrivacy(state);
  // The wall is read by the whole room: while participants write privately, it shows no more of
  // their cards than each of them sees of the others'. How many there are is what the room learns.
  const frame: Drawing = {
    ...input,
    hidden: privacy.cardsVisible === 'own' ? (card) => !input.byFacilitator(card) : () => false,
  };
  const written =
    privacy.cardsVisible === 'own'
      ? state.cards.filter((card) => card.type === 'idea' && frame.hidden(card)).length
      : null;
  byId('private-count').hidden = written === null;
  byId('private-count').textContent = written === null ? '' : t('screen.privacy.written', { count: written });
  byId('presence').textContent = t('screen.presence', { count: state.presence.count });
  renderParticipation(frame.votingOpen ? state.participation : null);
  byId('following').hidden = !frame.following;

  const spotlight = byId('spotlight');
  spotlight.hidden = lobby || board.focus === null;
  spotlight.replaceChildren(...(board.focus && !lobby ? [cardElement(board.focus, frame, 'spotlight-card')] : []));

  const drawn = byId('board');
  drawn.hidden = lobby || board.zones.length === 0;
  drawn.style.gridTemplateColumns = `repeat(${Math.ceil(board.cols)}, minmax(0, 1fr))`;
  drawn.style.gridTemplateRows = `repeat(${Math.ceil(board.rows)}, minmax(var(--grid-row), auto))`;
  drawn.replaceChildren(...board.zones.map((area) => zoneElement(area, frame)));
  byId('clusters').replaceChildren(...(lobby ? [] : board.loose.map((stack) => stackElement(stack, frame))));
  byId('empty').hidden = lobby || board.zones.length > 0 || board.loose.length > 0;
}

/**
 * In the lobby the room is still coming in: the invitation (when this screen has one, see
 * `invite` in `app.ts`) leaves its corner for the middle of the screen, large enough to scan and
 * read from the back, and the board waits for the first step.
 */
function renderLobby(lobby: boolean): void {
  byId('lobby').hidden = !lobby;
  const invite = byId('invite');
  const home = byId(lobby ? 'lobby' : 'meta');
  if (invite.parentElement !== home) home.append(invite);
}

function renderParticipation(participation: Participation | null): void {
  const line = byId('participation');
  line.hidden = participation === null;
  if (!participation) return;
  const { voted_any: voted, participants } = participation;
  line.textContent = t('screen.participation', { voted, participants });
}

/** The timer line: counting down while running, still while paused, gone while stopped. */
export function renderTimer(state: WorkshopState, remainingMs: number): void {
  const timer = byId('timer');
  timer.hidden = state.timer.state === 'stopped';
  timer.dataset.state = state.timer.state;
  timer.classList.toggle('done', state.timer.state === 'running' && remainingMs <= 0);
  const time = clockText(remainingMs);
  timer.textContent = state.timer.state === 'paused' ? t('screen.timer_paused', { time }) : time;
}

function zoneElement(area: ZoneArea, frame: Drawing): HTMLElement {
  const { zone } = area;
  const node = element('section', 'zone');
  node.dataset.zoneId = area.id;
  // Zones sit on the canvas's grid: column and row lines start at 1.
  node.style.gridColumn = `${Math.floor(zone.x) + 1} / span ${Math.max(1, Math.round(zone.cols))}`;
  node.style.gridRow = `${Math.floor(zone.y) + 1} / span ${Math.max(1, Math.round(zone.rows))}`;
  node.append(element('h2', 'zone-name', zone.name), ...area.stacks.map((stack) => stackElement(stack, frame)));
  return node;
}

function stackElement(stack: Stack, frame: Drawing): HTMLElement {
  const node = element('section', 'stack');
  if (stack.head) node.append(cardElement(stack.head, frame, 'stack-head'));
  if (stack.head?.color) node.classList.add(`color-${stack.head.color}`);
  const ideas = element('ul', 'ideas');
  for (const idea of stack.ideas) {
    const item = element('li', 'idea');
    item.append(cardElement(idea, frame, 'idea-card'));
    ideas.append(item);
  }
  if (stack.ideas.length > 0) node.append(ideas);
  return node;
}

function cardElement(card: Card, frame: Drawing, className: string): HTMLElement {
  const node = element('article', `card ${className}`);
  node.dataset.cardId = card.id;
  if (card.color) node.classList.add(`color-${card.color}`);
  if (card.aside) node.classList.add('aside');
  if (frame.board.focus?.id === card.id && className !== 'spotlight-card') node.classList.add('focused');
  // Its place is kept, so nothing moves when the cards are revealed; nothing written in it, nor its score.
  if (frame.hidden(card)) {
    node.classList.add('private');
    node.setAttribute('aria-label', t('screen.card.private'));
    return node;
  }
  const title = element('p', 'title', card.title);
  // Titles in any script read in their own direction.
  title.dir = 'auto';
  node.append(title);
  if (frame.contentShown && card.content) {
    const content = element('p', 'content', card.content);
    content.dir = 'auto';
    node.append(content);
  }
  const author = frame.authorOf(card);
  if (author !== null) node.append(element('p', 'by', author));
  // A cluster's own score shows once it has votes: most votes go to ideas, and a row of zeros is noise.
  if (frame.scoresShown && (card.type === 'idea' || card.summary.score !== 0)) {
    const score = element('span', 'score', String(card.summary.score));
    score.title = t('screen.card.score', { score: card.summary.score });
    node.append(score);
  }
  return node;
}
