/*
 * The facilitator's own votes across the workshop, so the console votes as a participant's page
 * does, within the same budget (docs/api.md#feedback-on-cards): read card by card the first time a
 * card's detail asks (there is no list of one's votes), then kept from the live events.
 */
import { signal, type Signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';
import { followVote, readOwnVotes, VoteBook } from '../../../shared/votes';
import { api } from '../../api';
import type { WorkshopScope } from '../context';

/** How many cards' votes are read at once. */
const READ_AT_ONCE = 6;

export interface OwnVotes {
  readonly voter: string;
  readonly book: VoteBook;
  /** Bumped on each change to the book: a view reading it redraws. */
  readonly version: Signal<number>;
  /** Starts the first reading (once); the book's `loaded` says when it is done. */
  ensure(): void;
  /** Whether the last reading failed: `ensure()` tries again. */
  readonly failed: Signal<boolean>;
  /** Takes the answer to one's own write in at once, before its event. */
  changed(): void;
}

export function useOwnVotes(scope: WorkshopScope, voter: string | undefined): OwnVotes | null {
  const own = useMemo(() => (voter ? ownVotes(scope, voter) : null), [scope, voter]);
  useEffect(() => {
    if (!own) return;
    const stops = [
      scope.live.on('workshop:event', ({ action, change }) => {
        if (followVote(own.book, own.voter, action, change)) own.changed();
      }),
      scope.live.on('card:deleted', ({ card_id, removed_ids, merged_into }) => {
        for (const id of [card_id, ...removed_ids]) own.book.forgetCard(id);
        // A merge moved the votes onto the new card.
        if (merged_into && own.book.loaded)
          void readOwnVotes(api, scope.id, own.voter, [merged_into], own.book, 1).then(
            () => own.changed(),
            () => undefined,
          );
        own.changed();
      }),
    ];
    return () => stops.forEach((stop) => stop());
  }, [own]);
  return own;
}

function ownVotes(scope: WorkshopScope, voter: string): OwnVotes {
  const book = new VoteBook();
  const version = signal(0);
  const failed = signal(false);
  let reading = false;
  const own: OwnVotes = {
    voter,
    book,
    version,
    failed,
    changed() {
      version.value++;
    },
    ensure() {
      if (reading) return;
      reading = true;
      failed.value = false;
      const ids = scope.state.value.cards.map((card) => card.id);
      readOwnVotes(api, scope.id, voter, ids, book, READ_AT_ONCE).then(
        () => {
          book.loaded = true;
          own.changed();
        },
        // Said in the detail, which offers to count again.
        () => {
          reading = false;
          failed.value = true;
        },
      );
    },
  };
  return own;
}
