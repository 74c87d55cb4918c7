import type { Card } from 'workshop-sdk';
import { inLobby, timerRemainingMs, type WorkshopState } from 'workshop-sdk/live';
import { boardOf, scoresVisible, screenView, type Stack } from '../shared/board';
import { clockText, showPrivacy } from '../shared/step';
import { placeChildren, setText } from './card-dom';
import type { CardActions, CardFrame } from './card-frame';
import { CardView } from './cards';
import { AddForms, byId, LobbyView } from './frame-view';
import { drawOutbox } from './outbox-view';
import { isMine, named, type ParticipantSession } from './session';
import { DEFAULT_PREFS, type Prefs } from './step-prefs';
import { pointsLeft, refusalOf, refusalText, spentOf, type Direction } from '../shared/votes';
import { t } from '../shared/i18n';

/*
 * The participant page's DOM, drawn from the live state and the session at each change. The
 * frame (header, forms, outbox) is in the HTML and only filled in (the outbox by `outbox-view.ts`);
 * cards keep their elements (`CardView`) from one drawing to the next.
 */

/** Says a text to assistive technology through the page's polite live region. */
export function announce(text: string): void {
  const region = byId('announce');
  // The same words twice in a row are still read: clear first, then set in the next frame.
  region.textContent = '';
  requestAnimationFrame(() => (region.textContent = text));
}

export class WorkshopPage {
  private readonly heads = new Map<string, CardView>();
  private readonly ideas = new Map<string, CardView>();
  private readonly stacks = new Map<string, { root: HTMLElement; list: HTMLUListElement }>();
  private spotlight: { id: string; view: CardView } | null = null;
  private readonly forms = new AddForms();
  private stepId: string | null | undefined = undefined;
  private readonly lobby = new LobbyView();

  constructor(
    private readonly session: ParticipantSession,
    private readonly actions: CardActions,
  ) {}

  draw(): void {
    const { session } = this;
    const state = session.live.state;
    const archived = state.workshop.state === 'archived';
    // In the lobby (steps, none started) the page waits: nothing to write, no board yet.
    const lobby = inLobby(state);
    const writable = !archived && !lobby;
    const prefs: Prefs = state.step?.prefs ?? DEFAULT_PREFS;
    const may = (right: Exclude<keyof Prefs, 'allow_edit' | 'allow_delete'>) => writable && prefs[right];

    document.title = state.step
      ? t('participant.frame.title', { step: state.step.name, workshop: state.workshop.title })
      : state.workshop.title;
    setText(byId('workshop-title'), state.workshop.title);
    setText(
      byId('step-name'),
      state.step?.name ?? t(lobby ? 'participant.frame.no_step_lobby' : 'participant.frame.no_step'),
    );
    setText(byId('step-instructions'), state.step?.instructions ?? '');
    if (this.stepId !== undefined && this.stepId !== (state.step?.id ?? null))
      announce(
        state.step ? t('participant.announce.now', { step: state.step.name }) : t('participant.announce.now_none'),
      );
    this.stepId = state.step?.id ?? null;
    showPrivacy(state);
    byId('archived').hidden = !archived;
    setText(byId('presence'), t('participant.frame.presence', { count: state.presence.count }));
    this.lobby.draw(state, lobby, this.session.me);
    this.drawTimer(state);

    // Votes: the person's, with those waiting to be sent, against the workshop's budget.
    const voting = may('allow_vote_on_ideas') || may('allow_vote_on_clusters');
    if (voting) session.loadVotes();
    const waitingVotes = session.outbox.items.flatMap(({ intent }) => (intent.kind === 'vote' ? [intent] : []));
    const votes = session.votes.withWaiting(waitingVotes);
    const total = spentOf([...votes.values()].flat());
    const limit = state.workshop.vote_limit;
    const left = pointsLeft(limit, total);
    const points = byId('points');
    points.hidden = !voting;
    setText(
      points,
      !session.votes.loaded
        ? t('participant.votes.counting')
        : left === null
          ? t('participant.votes.free', { max: limit.max_positive })
          : left === 0
            ? t('participant.votes.spent_all', { total: limit.positive })
            : t('participant.votes.left', { left, total: limit.positive }),
    );

    session.readRatings(state.workshop.criteria);
    const criteria = state.workshop.criteria;
    const { view, following } = screenView(state, false);
    const scoresShown = scoresVisible(state);
    const frameOf = (card: Card, focused: boolean): CardFrame => {
      const values = votes.get(card.id) ?? [];
      const canVote = may(card.type === 'idea' ? 'allow_vote_on_ideas' : 'allow_vote_on_clusters');
      const refusal = (direction: Direction) =>
        session.votes.loaded
          ? refusalText(refusalOf(direction, values, total, limit), t)
          : t('participant.votes.counting');
      const cardLeft = Math.max(
        0,
        Math.min(limit.max_positive - spentOf(values).positive, left ?? Number.POSITIVE_INFINITY),
      );
      const { outbox } = session;
      const waitingRates = outbox.waitingOn('rate', card.id);
      return {
        scoreShown: scoresShown && (card.type === 'idea' || card.summary.score !== 0),
        contentShown: view.card_sub_view === 'content',
        focused,
        byYou: isMine(card, session.me),
        vote: canVote
          ? {
              mine: values.reduce((sum, value) => sum + value, 0),
              plus: refusal(1),
              minus: refusal(-1),
              left: t('participant.votes.card_left', { left: cardLeft }),
            }
          : null,
        rate:
          may('allow_rate') && criteria.length > 0
            ? criteria.map((criterion) => {
                const waiting = waitingRates.filter((intent) => intent.criteriumId === criterion.id).at(-1);
                return {
                  criterion,
                  value: waiting?.value ?? session.rating(card.id, criterion.id)?.value ?? null,
                  waiting: waiting !== undefined,
                };
              })
            : null,
        comment: may('allow_comment'),
        items:
          state.workshop.sections.length > 0
            ? {
                sections: state.workshop.sections,
                list: session.items.get(card.id) ?? null,
                waiting: outbox.waitingOn('item', card.id),
                mayAdd: may('allow_items'),
                me: session.me,
              }
            : null,
        files: {
          list: session.attachments.get(card.id) ?? null,
          sending: session.sendingFiles.get(card.id) ?? [],
          mayAdd: may('allow_attachment'),
        },
        mayEdit: writable && session.mayChange(prefs.allow_edit, card),
        mayRemove: writable && session.mayChange(prefs.allow_delete, card),
        waitingTitle: outbox.waitingOn('edit', card.id).at(-1)?.title ?? null,
        comments: {
          list: session.comments.get(card.id) ?? null,
          waiting: outbox.waitingOn('comment', card.id).map(({ content }) => content),
          me: session.me,
        },
      };
    };

    const board = boardOf({ cards: state.cards, view, scoresShown, placements: {}, zones: {}, background: null });
    this.drawSpotlight(lobby ? null : board.focus, following, frameOf);
    this.drawStacks(lobby ? [] : board.loose, board.focus?.id ?? null, frameOf);
    byId('cards').hidden = lobby;
    byId('empty').hidden = lobby || board.loose.length > 0;
    byId('following').hidden = !following;

    this.forms.draw(state, may('allow_add_idea'), may('allow_add_cluster'));
    drawOutbox(this.session, state);
  }

  drawTimer(state: WorkshopState): void {
    const timer = byId('timer');
    const remaining = timerRemainingMs(state);
    timer.hidden = state.timer.state === 'stopped';
    timer.dataset.state = state.timer.state;
    const time = clockText(remaining);
    setText(
      timer,
      t(state.timer.state === 'paused' ? 'participant.frame.timer_paused' : 'participant.frame.timer_left', { time }),
    );
  }

  private drawSpotlight(
    focus: Card | null,
    following: boolean,
    frameOf: (card: Card, focused: boolean) => CardFrame,
  ): void {
    const section = byId('spotlight');
    section.hidden = focus === null;
    if (!focus) {
      this.spotlight = null;
      return;
    }
    setText(
      byId('spotlight-title'),
      t(following ? 'participant.frame.spotlight_screen' : 'participant.frame.spotlight'),
    );
    if (this.spotlight?.id !== focus.id) {
      this.spotlight = { id: focus.id, view: new CardView(this.actions, 'div', 'h3') };
      byId('spotlight-card').replaceChildren(this.spotlight.view.root);
      announce(t('participant.announce.on_screen', { title: named(focus) }));
      // Brought into sight unless the person is busy with a control further down.
      if (document.activeElement === document.body || document.activeElement === null)
        section.scrollIntoView({ block: 'nearest' });
    }
    this.spotlight.view.update(focus, frameOf(focus, true));
  }

  private drawStacks(
    stacks: Stack[],
    focusId: string | null,
    frameOf: (card: Card, focused: boolean) => CardFrame,
  ): void {
    const shownStacks = new Set<string>();
    const shownHeads = new Set<string>();
    const shownIdeas = new Set<string>();
    const roots = stacks.map((stack) => {
      const key = stack.head?.id ?? '';
      shownStacks.add(key);
      let drawn = this.stacks.get(key);
      if (!drawn) {
        drawn = { root: document.createElement('section'), list: document.createElement('ul') };
        drawn.root.className = 'stack';
        drawn.list.className = 'ideas';
        this.stacks.set(key, drawn);
      }
      const children: Node[] = [];
      if (stack.head) {
        shownHeads.add(stack.head.id);
        const head = this.viewOf(this.heads, stack.head.id, 'div', 'h2');
        head.update(stack.head, frameOf(stack.head, stack.head.id === focusId));
        children.push(head.root);
        drawn.root.className = `stack${stack.head.color ? ` color-${stack.head.color}` : ''}`;
      }
      placeChildren(
        drawn.list,
        stack.ideas.map((idea) => {
          shownIdeas.add(idea.id);
          const view = this.viewOf(this.ideas, idea.id, 'li', 'h3');
          view.update(idea, frameOf(idea, idea.id === focusId));
          return view.root;
        }),
      );
      if (stack.ideas.length > 0) children.push(drawn.list);
      placeChildren(drawn.root, children);
      return drawn.root;
    });
    placeChildren(byId('cards'), roots);
    for (const [views, shown] of [
      [this.heads, shownHeads],
      [this.ideas, shownIdeas],
    ] as const)
      for (const id of views.keys()) if (!shown.has(id)) views.delete(id);
    for (const key of this.stacks.keys()) if (!shownStacks.has(key)) this.stacks.delete(key);
  }

  private viewOf(views: Map<string, CardView>, id: string, container: 'li' | 'div', heading: 'h2' | 'h3'): CardView {
    let view = views.get(id);
    if (!view) views.set(id, (view = new CardView(this.actions, container, heading)));
    return view;
  }
}
