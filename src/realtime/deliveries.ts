import type { Db } from '../db/database';
import type { WorkshopEvent, WorkshopAction } from '../domain/events';
import {
  authorsHiddenIn,
  cardHiddenFromOthers,
  hiddenAuthorsOf,
  readerWhoWroteNothing,
  VisibilityMemo,
  type Reader,
} from '../modules/access/visibility';
import { FACILITATORS, intersect, participant, participantsExcept, type Audience, type Delivery } from './audience';
import { bare, RENDERERS, type Renderers } from './renderers';

/**
 * Turns one logged change into the socket events it produces, each with its audience, through
 * the renderer of its action (`renderers.ts`), then as private writing and anonymous authors let
 * each reader see it (docs/realtime.md#what-each-reader-receives, the rule of
 * `access/visibility.ts`). Live broadcasts and resume replays both go through here, so a replayed
 * event reads exactly as the live one would now. `memo` keeps what visibility read for the length
 * of one broadcast or replay.
 */
export async function deliveriesFor<A extends WorkshopAction>(
  db: Db,
  event: WorkshopEvent<A>,
  memo: VisibilityMemo = new VisibilityMemo(),
): Promise<Delivery[]> {
  const renderer: Renderers[A] = RENDERERS[event.action];
  const rendered = await renderer(event, db, memo);
  const { cardUserId } = event;
  const readable =
    cardUserId && (await cardHiddenFromOthers(db, event.workshopId, cardUserId, memo))
      ? forCardReaders(event as WorkshopEvent, rendered, cardUserId)
      : rendered;
  return readable.flatMap(withAuthorsHidden);
}

/**
 * A change about a card the current step hides from other participants: facilitators and the
 * card's author get what was rendered; every other participant the bare sequence number. A hidden
 * cluster deleted with ideas under it, or a merge, may take along cards those participants do see
 * (theirs, written before the step, or a facilitator's): they are told to read the cards again.
 */
function forCardReaders(event: WorkshopEvent, deliveries: readonly Delivery[], authorId: string): Delivery[] {
  const readers = [FACILITATORS, participant(authorId)];
  const kept = deliveries.flatMap((delivery) =>
    readers.flatMap((reader) => {
      const audience = intersect(delivery.audience, reader);
      return audience ? [{ ...delivery, audience } as Delivery] : [];
    }),
  );
  const others = bare(event, participantsExcept([authorId]));
  const tookOthers =
    event.action === 'mergeCards' || (event.action === 'removeCard' && event.change.removed_ids.length > 0);
  return [...kept, tookOthers ? ({ ...others, payload: { ...others.payload, reload: true } } as Delivery) : others];
}

/**
 * A rendering carrying something written anonymously, split by reader: each author (in either
 * role) sees their own name, facilitators and participants who wrote none of it see the names
 * their role may (`seesAuthor`). The parts partition the rendering's audience.
 */
function withAuthorsHidden(delivery: Delivery): Delivery[] {
  const authors = [...hiddenAuthorsOf(delivery.payload)];
  if (authors.length === 0) return [delivery];
  const parts: Array<{ audience: Audience; reader: Reader }> = [
    ...authors.flatMap((userId) => [
      {
        audience: { roles: ['facilitator'], user: userId, except: [] },
        reader: { role: 'facilitator', userId },
      } as const,
      {
        audience: { roles: ['participant'], user: userId, except: [] },
        reader: { role: 'participant', userId },
      } as const,
    ]),
    { audience: { roles: ['facilitator'], except: authors }, reader: readerWhoWroteNothing('facilitator') },
    { audience: { roles: ['participant'], except: authors }, reader: readerWhoWroteNothing('participant') },
  ];
  return parts.flatMap(({ audience, reader }) => {
    const within = intersect(delivery.audience, audience);
    return within
      ? [{ ...delivery, audience: within, payload: authorsHiddenIn(reader, delivery.payload).value } as Delivery]
      : [];
  });
}
