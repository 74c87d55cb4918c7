import { describe, expect, it } from 'vitest';
import type { Card, WorkshopClient } from '../client-sdk/src/index';
import { privacyOf, type LiveWorkshop, type WorkshopState } from '../client-sdk/src/live';
import { useServer, useLiveWorkshops } from './helpers/cast';
import { sdkUser, sdkWorkshop } from './helpers/sdk';
import { until } from './helpers/wait';

/*
 * Private writing through the SDK's live state (docs/api.md#private-writing-and-anonymous-authors):
 * while the current step has `cards_visible: own` each participant's state holds only their own
 * cards and the facilitators', and the step that reveals them brings the others' into every state,
 * live, without reopening it.
 */

const t = useServer();
const open = useLiveWorkshops();

/** How long a reveal may take to reach a live state: one step change, then one load over REST. */
const REVEAL_WITHIN_MS = 3_000;

const titles = (state: WorkshopState) => state.cards.map((card) => card.title).sort();
const byTitle = (state: WorkshopState, title: string): Card | undefined =>
  state.cards.find((card) => card.title === title);

/** Fay facilitates, Pat and Quinn take part; a private step (current) and an open one; Fay's cluster. */
async function scene(privatePrefs: { authors?: 'shown' | 'hidden_from_participants' | 'hidden' } = {}) {
  const fay = await sdkUser(t, 'Fay');
  const pat = await sdkUser(t, 'Pat');
  const quinn = await sdkUser(t, 'Quinn');
  const { id, inWorkshop } = await sdkWorkshop(fay.api, [pat.api, quinn.api], 'Retro');
  const write = await fay.api.post('/v1/workshops/{workshop_id}/steps', {
    ...inWorkshop,
    body: { name: 'Write alone', prefs: { cards_visible: 'own', ...privatePrefs } },
  });
  const discuss = await fay.api.post('/v1/workshops/{workshop_id}/steps', {
    ...inWorkshop,
    body: { name: 'Discuss', prefs: { cards_visible: 'all' } },
  });
  await fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: write.id } });
  const cluster = await fay.api.post('/v1/workshops/{workshop_id}/cards', {
    ...inWorkshop,
    body: { type: 'cluster', title: 'Went well' },
  });
  const addIdea = (api: WorkshopClient, title: string) =>
    api.post('/v1/workshops/{workshop_id}/cards', { ...inWorkshop, body: { type: 'idea', title, parent: cluster.id } });
  const changeStep = (stepId: string) =>
    fay.api.put('/v1/workshops/{id}', { params: { path: { id } }, body: { current_step_id: stepId } });
  return { fay, pat, quinn, id, inWorkshop, write, discuss, addIdea, changeStep };
}

/** Resolves once `live` has taken in every change up to the facilitator's `seq` (bare ones included). */
const caughtUp = (live: LiveWorkshop, seq: number, who: string) =>
  until(() => live.state.seq >= seq, `${who}'s live state at seq ${seq}`);

describe('SDK live state: the reveal', () => {
  it("holds only a participant's own ideas while the step is private, and everyone's once the facilitator moves on", async () => {
    const { fay, pat, quinn, id, discuss, write, addIdea, changeStep } = await scene();
    const faysLive = await open(fay.api, id);
    const patsLive = await open(pat.api, id);
    const quinnsLive = await open(quinn.api, id);
    expect(privacyOf(patsLive.state)).toEqual({ cardsVisible: 'own', authors: 'shown' });
    const heard = { pat: [] as WorkshopState[], quinn: [] as WorkshopState[] };
    patsLive.subscribe((state) => heard.pat.push(state));
    quinnsLive.subscribe((state) => heard.quinn.push(state));

    await addIdea(pat.api, "Pat's idea");
    await addIdea(quinn.api, "Quinn's idea");
    await until(() => titles(faysLive.state).length === 3, "both ideas in the facilitator's live state");
    // Each participant's state has taken in the other's change, bare: counted as seen, nothing shown.
    const written = faysLive.state.seq;
    await caughtUp(patsLive, written, 'Pat');
    await caughtUp(quinnsLive, written, 'Quinn');
    expect(titles(patsLive.state)).toEqual(["Pat's idea", 'Went well']);
    expect(titles(quinnsLive.state)).toEqual(["Quinn's idea", 'Went well']);
    expect(titles(faysLive.state)).toEqual(["Pat's idea", "Quinn's idea", 'Went well']);

    await changeStep(discuss.id);
    const everyone = ["Pat's idea", "Quinn's idea", 'Went well'];
    await until(
      () => titles(patsLive.state).join() === everyone.join(),
      "Quinn's idea in Pat's live state",
      REVEAL_WITHIN_MS,
    );
    await until(
      () => titles(quinnsLive.state).join() === everyone.join(),
      "Pat's idea in Quinn's live state",
      REVEAL_WITHIN_MS,
    );
    expect(patsLive.state.status).toBe('live');
    expect(privacyOf(quinnsLive.state)).toEqual({ cardsVisible: 'all', authors: 'shown' });
    // Subscribers heard the revealed cards (the UIs redraw from them).
    await until(
      () => titles(heard.pat.at(-1)!).length === 3 && titles(heard.quinn.at(-1)!).length === 3,
      'subscribers told of the reveal',
    );
    // Authors shown: each card names its author to everyone.
    expect(byTitle(quinnsLive.state, "Pat's idea")?.user_id).toBe(pat.id);

    // Open now, the next idea arrives with its change, as any other.
    await addIdea(pat.api, 'After the reveal');
    await until(
      () => [quinnsLive, faysLive].every((live) => byTitle(live.state, 'After the reveal') !== undefined),
      "Pat's next idea in Quinn's and Fay's live states",
    );

    // Back to a private step: each participant's state lets go of the other's ideas.
    await changeStep(write.id);
    await until(
      () => titles(quinnsLive.state).join() === ["Quinn's idea", 'Went well'].join(),
      "Pat's ideas gone from Quinn's live state",
      REVEAL_WITHIN_MS,
    );
    await until(
      () => titles(patsLive.state).join() === ['After the reveal', "Pat's idea", 'Went well'].join(),
      "Quinn's idea gone from Pat's live state",
      REVEAL_WITHIN_MS,
    );
    expect(titles(faysLive.state)).toEqual(['After the reveal', "Pat's idea", "Quinn's idea", 'Went well']);

    // The sequence stayed whole through it all: every state is where the facilitator's is, and a
    // change after it applies to each.
    await addIdea(fay.api, "Fay's idea");
    const lives = [faysLive, patsLive, quinnsLive];
    await until(
      () => lives.every((live) => byTitle(live.state, "Fay's idea") !== undefined),
      "Fay's idea in every live state",
    );
    expect(lives.map((live) => live.state.seq)).toEqual(lives.map(() => faysLive.state.seq));
  });

  it("reveals when the current step's own prefs change, and gives no author where the step hid it", async () => {
    const { fay, pat, quinn, id, write, addIdea } = await scene({ authors: 'hidden_from_participants' });
    const faysLive = await open(fay.api, id);
    const quinnsLive = await open(quinn.api, id);
    expect(privacyOf(quinnsLive.state)).toEqual({ cardsVisible: 'own', authors: 'hidden_from_participants' });
    await addIdea(pat.api, 'Say it plainly');
    await addIdea(quinn.api, 'Mine, unnamed to others');
    await until(() => titles(faysLive.state).length === 3, "both ideas in the facilitator's live state");
    await caughtUp(quinnsLive, faysLive.state.seq, 'Quinn');
    expect(byTitle(quinnsLive.state, 'Say it plainly')).toBeUndefined();

    // Only an `updateStep` arrives: the step stays current, its prefs open the cards.
    const inStep = { params: { path: { workshop_id: id, id: write.id } } };
    await fay.api.put('/v1/workshops/{workshop_id}/steps/{id}', {
      ...inStep,
      body: { name: 'Write alone', prefs: { cards_visible: 'all' } },
    });
    await until(
      () => byTitle(quinnsLive.state, 'Say it plainly') !== undefined,
      "Pat's idea in Quinn's live state",
      REVEAL_WITHIN_MS,
    );
    expect(privacyOf(quinnsLive.state).cardsVisible).toBe('all');
    // Written while authors were hidden from participants: no author for Quinn, Quinn's own as ever, Pat's for the facilitator.
    expect(byTitle(quinnsLive.state, 'Say it plainly')).toMatchObject({
      user_id: null,
      author_visibility: 'hidden_from_participants',
    });
    expect(byTitle(quinnsLive.state, 'Mine, unnamed to others')?.user_id).toBe(quinn.id);
    await until(
      () => privacyOf(faysLive.state).cardsVisible === 'all',
      "the facilitator's state told of the step's prefs",
    );
    expect(byTitle(faysLive.state, 'Say it plainly')?.user_id).toBe(pat.id);
  });
});
