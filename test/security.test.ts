import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNotNull } from 'drizzle-orm';
import { expectError, seedMember, seedWorkshopWith, type TestUser } from './helpers/factories';
import { useUsers } from './helpers/cast';
import {
  ACCESS,
  callOperation,
  documentedOperations,
  guardedAs,
  guestOf,
  seedScene,
  succeeded,
  type Access,
  type Operation,
  type Scene,
} from './helpers/access-scene';
import { startTestServer } from './helpers/server';

/*
 * Who may call what, for every operation the service documents (in the spirit of unkey's
 * `runCommonRouteTests`). The operations come from the running service's own OpenAPI document,
 * so a new route gets these cases without anyone writing them, and the suite fails until the
 * route is classified in ACCESS (`helpers/access-scene.ts`). Expectations (docs/api.md#who-may-do-what,
 * docs/api.md#authentication-and-errors):
 *   anonymous                         → 401 unauthenticated, on every /v1 route but the public ones;
 *   a stranger (signed up, no member) → 404 not_found on workshop-, organization- and owner-scoped routes, never 403;
 *   a participant of the workshop     → 403 forbidden on facilitator-only routes;
 *   a facilitator of another workshop → 404 not_found on workshop-scoped routes;
 *   a guest (docs/api.md#guests)      → as a participant in their workshop, 404 in any other, and 403
 *                                       forbidden on everything outside workshops and their own account;
 *   a participant under a private step → 404 not_found on everything about another participant's card
 *                                       (docs/api.md#private-writing-and-anonymous-authors), as if it did
 *                                       not exist.
 */

// The operations must be known while vitest collects the tests, so this file's server starts now
// rather than in beforeAll.
const t = await startTestServer();
afterAll(() => t.close());

const operations = await documentedOperations(t);

/** The routes outside workshops that a guest's token reaches (docs/api.md#guests); every other is 403 for them. */
const GUEST_REACHES = new Set([
  'POST /v1/auth/logout',
  'GET /v1/user/me',
  'PUT /v1/user/me',
  'GET /v1/user/me/notifications',
  'PUT /v1/user/me/notifications/read',
  'PUT /v1/user/me/notifications/{id}',
  // Uploads become attachments on the workshop's cards.
  'POST /v1/uploads',
]);

const [fay, pat, otto, stan, pia] = useUsers(t, 'Fay', 'Pat', 'Otto', 'Stan', 'Pia');
// Otto facilitates a workshop of his own: a facilitator, only not of this one.
beforeAll(() => void seedWorkshopWith(t, otto, []));

/** One fresh scene per group of cases, so that a wrongly allowed write spoils only its own group. */
function useScene() {
  const scene = {} as Scene;
  beforeAll(async () => {
    Object.assign(scene, await seedScene(t, { fay, pat }));
  });
  return scene;
}

const call = (operation: Operation, scene: Scene, user?: TestUser) => callOperation(t, operation, scene, user);
const guarded = (...kinds: Access[]) => guardedAs(operations, ...kinds);
const label = (o: Operation) => o.key;

describe('the classification', () => {
  it('covers every documented operation, and only those', () => {
    const documented = operations.map((o) => o.key).sort();
    expect(
      documented.filter((key) => !(key in ACCESS)),
      'documented but not classified in ACCESS',
    ).toEqual([]);
    expect(
      Object.keys(ACCESS).filter((key) => !documented.includes(key)),
      'classified but not documented',
    ).toEqual([]);
  });

  it('agrees with the document on which operations are public', () => {
    const publicInDocument = operations
      .filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0)
      .map(label)
      .sort();
    expect(guarded('public').map(label).sort()).toEqual(publicInDocument);
  });
});

describe('anonymous', () => {
  const scene = useScene();

  it.each(operations.filter((o) => ACCESS[o.key]?.[0] !== 'public').map((o) => [label(o), o] as const))(
    '%s → 401',
    async (_, operation) => {
      expectError(await call(operation, scene), 401, 'unauthenticated');
    },
  );

  it.each(guarded('public').map((o) => [label(o), o] as const))('%s needs no token', async (_, operation) => {
    expect((await call(operation, scene)).status).not.toBe(401);
  });
});

describe('a stranger', () => {
  const scene = useScene();

  it.each(guarded('owner', 'organization', 'member', 'facilitator').map((o) => [label(o), o] as const))(
    '%s → 404',
    async (_, operation) => {
      expectError(await call(operation, scene, stan), 404, 'not_found');
    },
  );
});

describe('a participant', () => {
  const scene = useScene();

  it.each(guarded('facilitator').map((o) => [label(o), o] as const))('%s → 403', async (_, operation) => {
    expectError(await call(operation, scene, pat), 403, 'forbidden');
  });
});

describe('a facilitator of another workshop', () => {
  const scene = useScene();

  it.each(guarded('member', 'facilitator').map((o) => [label(o), o] as const))('%s → 404', async (_, operation) => {
    expectError(await call(operation, scene, otto), 404, 'not_found');
  });
});

describe('a guest of the workshop', () => {
  const scene = useScene();
  const guest = {} as TestUser;
  beforeAll(async () => {
    Object.assign(guest, await guestOf(t, scene.workshop, fay));
  });

  it.each(guarded('facilitator').map((o) => [label(o), o] as const))('%s → 403', async (_, operation) => {
    expectError(await call(operation, scene, guest), 403, 'forbidden');
  });

  it.each(
    guarded('user', 'organization')
      .filter((o) => !GUEST_REACHES.has(o.key))
      .map((o) => [label(o), o] as const),
  )('%s → 403', async (_, operation) => {
    expectError(await call(operation, scene, guest), 403, 'forbidden');
  });
});

describe('a guest of another workshop', () => {
  const scene = useScene();
  const guest = {} as TestUser;
  beforeAll(async () => {
    const elsewhere = await seedWorkshopWith(t, otto, []);
    Object.assign(guest, await guestOf(t, elsewhere.id, otto));
  });

  it.each(guarded('owner', 'member', 'facilitator').map((o) => [label(o), o] as const))(
    '%s → 404',
    async (_, operation) => {
      expectError(await call(operation, scene, guest), 404, 'not_found');
    },
  );
});

describe('a participant while a private step hides the card', () => {
  const scene = useScene();
  beforeAll(async () => {
    // The scene's cards become Pia's, a participant, and a step with cards_visible: own is current.
    await seedMember(t, scene.workshop, pia);
    await t.write(async (tx, { cards, events }) => {
      await tx.update(cards).set({ userId: pia.id }).where(eq(cards.workshopId, scene.workshop));
      await tx
        .update(events)
        .set({ cardUserId: pia.id })
        .where(and(eq(events.workshopId, scene.workshop), isNotNull(events.cardUserId)));
    });
    const w = `/v1/workshops/${scene.workshop}`;
    await succeeded(
      t.request('PUT', `${w}/steps/${scene.step}`, {
        token: fay.token,
        body: { name: 'Vote', prefs: { cards_visible: 'own' } },
      }),
    );
    await succeeded(t.request('PUT', w, { token: fay.token, body: { current_step_id: scene.step } }));
  });
  const aboutTheCard = operations.filter(
    (o) => /\/cards\/(\{id\}|\{card_id\})/.test(o.path) && ACCESS[o.key]?.[0] === 'member',
  );

  it('covers the card and everything on it', () => {
    expect(aboutTheCard.length).toBeGreaterThan(20);
  });

  it.each(aboutTheCard.map((o) => [label(o), o] as const))('%s → 404', async (_, operation) => {
    expectError(await call(operation, scene, pat), 404, 'not_found');
  });

  it('a merge naming the hidden cards answers as for cards that do not exist (400 on cards_id)', async () => {
    const merge = operations.find((o) => o.key === 'POST /v1/workshops/{workshop_id}/cards/merge')!;
    expectError(await call(merge, scene, pat), 400, 'invalid_request');
  });

  it('the card list, the workshop and the log leave them out; the facilitator and Pia still see them', async () => {
    const w = `/v1/workshops/${scene.workshop}`;
    const listed = async (user: TestUser) =>
      (await succeeded(t.request<Array<{ id: string }>>('GET', `${w}/cards`, { token: user.token }))).map(
        (card) => card.id,
      );
    expect(await listed(pat)).toEqual([]);
    expect(await listed(pia)).toEqual(expect.arrayContaining([scene.cluster, scene.card]));
    expect(await listed(fay)).toEqual(expect.arrayContaining([scene.cluster, scene.card]));
    const workshop = await succeeded(
      t.request<{ criteria: Array<{ ratings: unknown[] }>; cards_visible: string }>('GET', w, { token: pat.token }),
    );
    expect(workshop.cards_visible).toBe('own');
    expect(workshop.criteria.flatMap((criterion) => criterion.ratings)).toEqual([]);
    const log = await succeeded(
      t.request<Array<{ action: string }>>('GET', `${w}/events?per_page=100`, { token: pat.token }),
    );
    // Positions are everyone's (the canvas document holds them); nothing else names the card.
    expect(log.filter((event) => event.action !== 'moveCards' && JSON.stringify(event).includes(scene.card))).toEqual(
      [],
    );
  });
});
