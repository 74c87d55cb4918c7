import { describe, expect, it } from 'vitest';
import { ApiError, createClient, type Card, type WorkshopClient } from '../client-sdk/src/index';
import { openWorkshop, timerRemainingMs, type WorkshopState } from '../client-sdk/src/live';
import { applyEvent } from '../client-sdk/src/live/state';
import { eventKey, SequenceTracker } from '../client-sdk/src/live/sequence';
import { useServer, useLiveWorkshops } from './helpers/cast';
import { FAST_RECONNECT, sdkUser, sdkWorkshop } from './helpers/sdk';
import { failNextStatement, storeBusyError } from './helpers/statements';
import { testStore } from './helpers/store';
import { until } from './helpers/wait';

/*
 * Live workshop state through the SDK against the real server: it follows every change, stays
 * equal to what REST reads, and survives a dropped connection without losing or repeating a change.
 */

const t = useServer();
const open = useLiveWorkshops();

const signedUp = async (name: string) => (await sdkUser(t, name)).api;

/** A facilitator's workshop with one cluster, which a participant joined. */
async function scene() {
  const fay = await signedUp('Fay');
  const pat = await signedUp('Pat');
  const { workshop, inWorkshop } = await sdkWorkshop(fay, [pat], 'Live');
  const cluster = await fay.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'cluster', title: 'Ideas' },
  });
  const addIdea = (api: WorkshopClient, title: string, parent = cluster.id) =>
    api.post('/v1/workshops/{workshop_id}/cards', { ...inWorkshop, body: { type: 'idea', title, parent } });
  return { fay, pat, workshop, cluster, inWorkshop, addIdea };
}

/** The cards as REST lists them now, in the reader's eyes. */
const cardsOverRest = (api: WorkshopClient, workshopId: string) =>
  api.get('/v1/workshops/{workshop_id}/cards', { params: { path: { workshop_id: workshopId } } });
const placements = (cards: Card[]) => cards.map((card) => `${card.title}@${card.parent ?? '-'}:${card.position}`);
const latestSeq = (state: WorkshopState) => state.seq;

describe('SDK live workshop', () => {
  // The client's side of it, alike on both stores; the fault is made at SQLite's driver (a failed
  // query outside a transaction cannot be made at node-postgres' Client: the pool passes a callback).
  it.runIf(testStore === 'sqlite')(
    'waits out a join the server answered service_unavailable (its database busy a moment), and opens',
    async () => {
      const { pat, workshop } = await scene();
      // The join's read of the member's access is the first statement of the opening to touch the membership.
      const failing = failNextStatement(/join "workshop_members"/i, storeBusyError());
      try {
        const live = await open(pat, workshop.id);
        expect(live.state.status).toBe('live');
      } finally {
        expect(failing.stop()).toBe(true);
      }
    },
  );

  it('loads the workshop and follows cards, scores, view, step, timer and presence', async () => {
    const { fay, pat, workshop, cluster, inWorkshop, addIdea } = await scene();
    const live = await open(pat, workshop.id);
    expect(live.state.status).toBe('live');
    expect(live.state.workshop.id).toBe(workshop.id);
    expect(live.state.cards.map((card) => card.id)).toEqual([cluster.id]);

    const renders: WorkshopState[] = [];
    live.subscribe((state) => renders.push(state));
    expect(renders).toHaveLength(1);
    const created: string[] = [];
    live.on('card:created', ({ card }) => created.push(card.title));

    const idea = await addIdea(pat, 'Pairing');
    await fay.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
      params: { path: { workshop_id: workshop.id, card_id: idea.id } },
      body: { value: 1 },
    });
    const step = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: { name: 'Vote', view: { sort: 'score' } },
    });
    await fay.put('/v1/workshops/{id}', {
      params: { path: { id: workshop.id } },
      body: { current_step_id: step.id, force_sync: true, title: 'Live retro' },
    });
    await fay.put('/v1/workshops/{workshop_id}/timer', { ...inWorkshop, body: { duration_s: 120 } });

    await until(() => live.state.timer.state === 'running', 'the timer in the live state');
    const state = live.state;
    expect(created).toEqual(['Pairing']);
    expect(state.cards.find((card) => card.id === idea.id)?.summary.score).toBe(1);
    expect(state.step?.id).toBe(step.id);
    expect(state.view.sort).toBe('score');
    expect(state.forceSync).toBe(true);
    expect(state.workshop.title).toBe('Live retro');
    expect(timerRemainingMs(state)).toBeGreaterThan(110_000);
    expect(timerRemainingMs(state)).toBeLessThanOrEqual(120_000);
    await until(() => live.state.presence.count === 1, 'presence listing the participant');
    expect(live.state.presence.users.map((user) => user.name)).toEqual(['Pat']);

    const events = await fay.get('/v1/workshops/{workshop_id}/events', {
      ...inWorkshop,
      params: { ...inWorkshop.params, query: { per_page: 1 } },
    });
    expect(events).toHaveLength(1);
    expect(renders.length).toBeGreaterThan(1);
    expect(renders.at(-1)).toBe(live.state);
  });

  it('keeps card order equal to the REST list through moves, merges and imports', async () => {
    const { fay, workshop, cluster, inWorkshop, addIdea } = await scene();
    const live = await open(fay, workshop.id);
    const other = await fay.post('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { type: 'cluster', title: 'More' },
    });
    const [a, b, c] = [await addIdea(fay, 'A'), await addIdea(fay, 'B'), await addIdea(fay, 'C')];
    const card = (id: string) => ({ params: { path: { workshop_id: workshop.id, id } } });
    await fay.put('/v1/workshops/{workshop_id}/cards/{id}', { ...card(c.id), body: { position: 0 } });
    await fay.put('/v1/workshops/{workshop_id}/cards/{id}', { ...card(a.id), body: { parent: other.id } });
    await fay.delete('/v1/workshops/{workshop_id}/cards/{id}', card(b.id));
    const settled = async () => {
      const rest = await cardsOverRest(fay, workshop.id);
      await until(
        () => placements(live.state.cards).join() === placements(rest).join(),
        'the live cards to equal the REST list',
      );
    };
    await settled();
    expect(placements(live.state.cards)).toEqual([
      'Ideas@-:0',
      'C@' + cluster.id + ':0',
      'More@-:1',
      'A@' + other.id + ':0',
    ]);

    await fay.post('/v1/workshops/{workshop_id}/cards/merge', {
      ...inWorkshop,
      body: { cards_id: [other.id, cluster.id], title: 'Merged' },
    });
    await settled();
    await fay.put('/v1/workshops/{workshop_id}/cards', {
      ...inWorkshop,
      body: { file: new Blob(['type,title,cluster\nidea,Imported,From CSV\n']) },
    });
    await settled();
    expect(live.state.cards.map((c) => c.title)).toEqual(['From CSV', 'Imported']);
  });

  it("reads everyone's scores again when the current step starts showing votes", async () => {
    const { fay, pat, workshop, inWorkshop, addIdea } = await scene();
    const secret = await fay.post('/v1/workshops/{workshop_id}/steps', {
      ...inWorkshop,
      body: { name: 'Secret vote', prefs: { allow_display_votes: false } },
    });
    await fay.put('/v1/workshops/{id}', {
      params: { path: { id: workshop.id } },
      body: { current_step_id: secret.id },
    });
    const idea = await addIdea(pat, 'Pizza friday');
    await fay.post('/v1/workshops/{workshop_id}/cards/{card_id}/votes', {
      params: { path: { workshop_id: workshop.id, card_id: idea.id } },
      body: { value: 1 },
    });
    const live = await open(pat, workshop.id);
    const scoreOfIdea = () => live.state.cards.find((card) => card.id === idea.id)?.summary.score;
    // While the step hides votes a participant's cards carry only their own.
    expect(scoreOfIdea()).toBe(0);

    // The same step, its prefs changed: only an `updateStep` arrives, no score event.
    await fay.put('/v1/workshops/{workshop_id}/steps/{id}', {
      params: { path: { workshop_id: workshop.id, id: secret.id } },
      body: { name: 'Secret vote', prefs: { allow_display_votes: true } },
    });
    await until(() => scoreOfIdea() === 1, "the facilitator's vote in the participant's live state");
    expect(live.state.step?.prefs.allow_display_votes).toBe(true);
  });

  it('survives a dropped connection without losing or repeating a change', async () => {
    const { fay, pat, workshop, addIdea } = await scene();
    const live = await open(pat, workshop.id);
    const created: string[] = [];
    live.on('card:created', ({ card }) => created.push(card.title));
    await addIdea(fay, 'Before');
    await until(() => created.length === 1, 'the first card live');

    // The network goes away: the server loses the connection, and changes go on meanwhile.
    const patsSockets = [...t.server.realtime.io.sockets.sockets.values()].filter(
      (socket) => socket.data.user?.name === 'Pat',
    );
    expect(patsSockets).toHaveLength(1);
    patsSockets[0]!.conn.close();
    await until(() => live.state.status === 'reconnecting', 'the session to notice the drop');
    for (const title of ['While away 1', 'While away 2', 'While away 3']) await addIdea(fay, title);

    await until(() => live.state.status === 'live' && created.length === 4, 'the missed cards replayed');
    await addIdea(fay, 'After');
    await until(() => created.length === 5, 'live events after the return');
    expect(created).toEqual(['Before', 'While away 1', 'While away 2', 'While away 3', 'After']);
    expect(placements(live.state.cards)).toEqual(placements(await cardsOverRest(pat, workshop.id)));
    const [newest] = await fay.get('/v1/workshops/{workshop_id}/events', {
      params: { path: { workshop_id: workshop.id }, query: { per_page: 1 } },
    });
    expect(newest!.action).toBe('addCard');
    expect(latestSeq(live.state)).toBe(
      Number(
        (
          await fay.fetchClient.GET('/v1/workshops/{workshop_id}/events', {
            params: { path: { workshop_id: workshop.id } },
          })
        ).response.headers.get('x-total-count'),
      ),
    );
  });

  it('fills a gap in the sequence by asking for the missed changes', async () => {
    const { fay, pat, workshop, addIdea } = await scene();
    const live = await open(pat, workshop.id);
    const created: string[] = [];
    live.on('card:created', ({ card }) => created.push(card.title));

    // Events lost on the way (an instance's fan-out failing) while the connection stays up.
    const [patsSocket] = [...t.server.realtime.io.sockets.sockets.values()].filter(
      (socket) => socket.data.user?.name === 'Pat',
    );
    const rooms = [...patsSocket!.rooms].filter((room) => room.startsWith(`workshop:${workshop.id}`));
    // The in-memory adapter leaves and joins at once.
    for (const room of rooms) void patsSocket!.leave(room);
    await addIdea(fay, 'Lost 1');
    await addIdea(fay, 'Lost 2');
    void patsSocket!.join(rooms);
    await addIdea(fay, 'Next');

    await until(() => created.length === 3, 'the gap filled');
    expect(created).toEqual(['Lost 1', 'Lost 2', 'Next']);
    expect(placements(live.state.cards)).toEqual(placements(await cardsOverRest(pat, workshop.id)));
  });

  it('fills gaps that keep coming at a pace within its join budget, and stays current', async () => {
    const { fay, pat, workshop, addIdea } = await scene();
    const live = await open(pat, workshop.id);
    const created: string[] = [];
    live.on('card:created', ({ card }) => created.push(card.title));
    const [patsSocket] = [...t.server.realtime.io.sockets.sockets.values()].filter(
      (socket) => socket.data.user?.name === 'Pat',
    );
    let joins = 0;
    patsSocket!.onAny((event: string) => {
      if (event === 'join') joins += 1;
    });

    // Every other change is lost on its way, as while the instances cannot reach each other.
    const rooms = [...patsSocket!.rooms].filter((room) => room.startsWith(`workshop:${workshop.id}`));
    const titles = Array.from({ length: 40 }, (_, i) => `Idea ${i}`);
    for (const [i, title] of titles.entries()) {
      if (i % 2 === 0) for (const room of rooms) void patsSocket!.leave(room);
      await addIdea(fay, title);
      if (i % 2 === 0) void patsSocket!.join(rooms);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }

    await until(() => created.length === titles.length, 'every change, lost ones included', 8_000);
    expect(created).toEqual(titles);
    // A join per gap would spend the ten a socket may make in ten seconds, then wait out the refusal.
    expect(joins).toBeLessThanOrEqual(5);
    expect(placements(live.state.cards)).toEqual(placements(await cardsOverRest(pat, workshop.id)));
  });

  it('ends the session when the token is logged out or the workshop deleted', async () => {
    const { fay, pat, workshop } = await scene();
    const patsLive = await open(pat, workshop.id);
    const faysLive = await open(fay, workshop.id);

    await pat.post('/v1/auth/logout');
    await until(() => patsLive.state.status === 'closed', "the participant's session to end");
    expect(patsLive.state.error).toMatchObject({ status: 401, code: 'unauthenticated' });

    await fay.delete('/v1/workshops/{id}', { params: { path: { id: workshop.id } } });
    await until(() => faysLive.state.status === 'closed', "the facilitator's session to end");
    expect(faysLive.state.error).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('refuses to open a workshop the user is not a member of', async () => {
    const { workshop } = await scene();
    const stranger = await signedUp('Stan');
    const refusal = await openWorkshop(stranger, workshop.id, FAST_RECONNECT).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 404, code: 'not_found' });
    const anonymous = await openWorkshop(
      createClient({ baseUrl: t.url, token: 'not-a-token' }),
      workshop.id,
      FAST_RECONNECT,
    ).catch((err: unknown) => err);
    expect(anonymous).toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});

describe('SDK sequence tracking', () => {
  it('applies each change once, finds gaps, and resumes before a change that may have arrived in part', () => {
    const sequence = new SequenceTracker();
    sequence.loadedAt(10);
    expect(sequence.admit(10, eventKey('card:updated', { card: { id: 'a' } }))).toBe('duplicate');
    expect(sequence.resumeFrom()).toBe(10);
    expect(sequence.admit(11, eventKey('workshop:updated', {}))).toBe('apply');
    expect(sequence.admit(11, eventKey('view:changed', {}))).toBe('apply');
    expect(sequence.admit(11, eventKey('view:changed', {}))).toBe('duplicate');
    expect(sequence.admit(9, eventKey('card:created', { card: { id: 'b' } }))).toBe('duplicate');
    expect(sequence.admit(13, eventKey('card:created', { card: { id: 'c' } }))).toBe('gap');
    expect(sequence.resumeFrom()).toBe(10);
    expect(sequence.admit(12, eventKey('card:deleted', { card_id: 'b' }))).toBe('apply');
    expect(sequence.admit(12, eventKey('card:deleted', { card_id: 'd' }))).toBe('apply');
    expect(sequence.seq).toBe(12);
  });
});

describe('SDK card order', () => {
  const cardAt = (id: string, parent: string | null, position: number, title = id) =>
    ({ id, parent, position, title, type: parent ? 'idea' : 'cluster' }) as Card;
  const created = (state: WorkshopState, card: Card) =>
    applyEvent(state, 'card:created', { seq: state.seq + 1, workshop_id: 'w', card });
  const withCards = (cards: Card[]) => ({ cards, seq: 0 }) as unknown as WorkshopState;

  it('puts each new idea at its position in its stack, as a model of the stacks says, and keeps the cards it did not move', () => {
    // A model: clusters in order, each with its ideas in order; a new idea goes in at its position, clamped.
    const model = new Map<string, string[]>([
      ['k0', []],
      ['k1', []],
      ['k2', []],
    ]);
    let state = withCards([cardAt('k0', null, 0), cardAt('k1', null, 1), cardAt('k2', null, 2)]);
    let seed = 7;
    const random = (below: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % below;
    for (let i = 0; i < 150; i++) {
      const parent = `k${random(3)}`;
      const stack = model.get(parent)!;
      // The server's positions: 0..n (a negative one is taken as 0).
      const position = random(stack.length + 2) - 1;
      stack.splice(Math.min(Math.max(position, 0), stack.length), 0, `i${i}`);
      const before = state.cards;
      state = created(state, cardAt(`i${i}`, parent, position));
      const expected = [...model].flatMap(([cluster, ideas]) => [
        `${cluster}@-`,
        ...ideas.map((idea) => `${idea}@${cluster}`),
      ]);
      expect(state.cards.map((card) => `${card.id}@${card.parent ?? '-'}`)).toEqual(expected);
      const positions = new Map(state.cards.map((card) => [card.id, card.position]));
      expect([...model.values()].flatMap((ideas) => ideas.map((idea) => positions.get(idea)))).toEqual(
        [...model.values()].flatMap((ideas) => ideas.map((_, at) => at)),
      );
      // Cards of the other stacks are the same objects: a view may skip them.
      for (const card of before.filter((c) => c.parent !== parent)) expect(state.cards).toContain(card);
    }
    // An idea whose cluster this reader cannot see is left out, as in the list the state loaded.
    expect(created(state, cardAt('orphan', 'hidden-cluster', 0)).cards.map((card) => card.id)).not.toContain('orphan');
  });

  it("keeps the server's positions in a stack seen in part, moving the siblings as the server does", () => {
    // A private step: this reader sees three of the stack's cards, at the server's positions 2, 5 and 9.
    let state = withCards([cardAt('k', null, 0), cardAt('a', 'k', 2), cardAt('b', 'k', 5), cardAt('c', 'k', 9)]);
    const placements = () => state.cards.map((card) => `${card.id}@${card.position}`);
    state = created(state, cardAt('d', 'k', 5));
    expect(placements()).toEqual(['k@0', 'a@2', 'd@5', 'b@6', 'c@10']);
    const before = state.cards;
    state = applyEvent(state, 'card:updated', {
      seq: 2,
      workshop_id: 'w',
      card: cardAt('b', 'k', 6, 'B edited'),
      changes: { title: 'B edited' },
    } as never);
    expect(placements()).toEqual(['k@0', 'a@2', 'd@5', 'b@6', 'c@10']);
    expect(state.cards.filter((card) => card.id !== 'b').every((card) => before.includes(card))).toBe(true);
    // c moves to the top of the stack: the server puts it at 0 and every card before it one up.
    state = applyEvent(state, 'card:updated', {
      seq: 3,
      workshop_id: 'w',
      card: cardAt('c', 'k', 0),
      changes: { position: [10, 0] },
    } as never);
    expect(placements()).toEqual(['k@0', 'c@0', 'a@3', 'd@6', 'b@7']);
    state = applyEvent(state, 'card:deleted', {
      seq: 4,
      workshop_id: 'w',
      card_id: 'd',
      removed_ids: [],
      merged_into: null,
    } as never);
    expect(placements()).toEqual(['k@0', 'c@0', 'a@3', 'b@6']);
  });

  it('edits a card in place without renumbering or copying the others', () => {
    const state = withCards([cardAt('k', null, 0), cardAt('a', 'k', 0), cardAt('b', 'k', 1), cardAt('c', 'k', 2)]);
    const edited = applyEvent(state, 'card:updated', {
      seq: 1,
      workshop_id: 'w',
      card: cardAt('b', 'k', 1, 'B edited'),
      changes: { title: 'B edited' },
    } as never);
    expect(edited.cards.map((card) => card.title)).toEqual(['k', 'a', 'B edited', 'c']);
    expect(edited.cards.filter((card) => card.id !== 'b')).toEqual(state.cards.filter((card) => card.id !== 'b'));
    expect(edited.cards[1]).toBe(state.cards[1]);
    expect(state.cards[2]!.title).toBe('b');
  });
});
