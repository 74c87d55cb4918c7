import { nowIso } from '../../db/columns';
import type { Db } from '../../db/database';
import type { DomainEventBus } from '../../domain/bus';
import { endUnusedLinks } from './account-repo';
import {
  clearPassword,
  deleteSessionsExcept,
  deleteUnprovenIdentities,
  markIdentityProven,
  revokePersonalApiTokens,
  sessionOf,
} from './repo';

/** What a proof of the address ended, for the caller to announce once its transaction has committed. */
export interface EndedWaysIn {
  userId: string;
  /** Hashes of the sessions ended: their live connections end too (`announceEndedWaysIn`). */
  sessions: string[];
}

/**
 * A proof of the account's mailbox (the confirmation link; the password reset and address change
 * links call this too) ends every other way into the account made before it
 * (docs/api.md#an-address-is-proven-once): anyone may have signed up with the address, or signed in
 * with it through a provider that never checked it, before its owner proved it. Its other
 * sessions, its personal API tokens and the provider identities linked while the address was not
 * proven go, but for the one the prover's own session came by; that session stays. Without it,
 * the password goes too: whoever set it may not be the person who holds the mailbox, who sets one
 * anew through a reset. An address change asked for before goes too: whoever knew the password
 * then could otherwise still move the account to their own mailbox with its link.
 *
 * Runs inside the proof's transaction with the user's row locked (`lockUser`), so a login or a
 * provider sign-in under way (which take the same lock) either ends before it and is ended with the
 * rest, or starts after it and finds the password or the identity gone. `proverSession` is the
 * hash of the session token the proof was sent with, if any: it counts only when it is one of this
 * account's. The identity epoch moves with these rows (their triggers), so every instance's token
 * caches drop what they resolved.
 */
export async function endOtherWaysIn(tx: Db, userId: string, proverSession: string | null): Promise<EndedWaysIn> {
  const session = proverSession === null ? undefined : await sessionOf(tx, userId, proverSession);
  const own = session ? proverSession : null;
  const now = nowIso();
  const sessions = await deleteSessionsExcept(tx, userId, own);
  await revokePersonalApiTokens(tx, userId, now);
  // The identity the prover signed in by is the mailbox owner's too (a provider that does not say
  // it verified the address still opened this person's own account).
  if (session?.identityId) await markIdentityProven(tx, userId, session.identityId);
  await deleteUnprovenIdentities(tx, userId);
  await endUnusedLinks(tx, userId, 'change_email', now);
  if (own === null) await clearPassword(tx, userId, now);
  return { userId, sessions };
}

/**
 * After the proof's commit: live connections (Socket.IO, the sync endpoint) opened with the ended
 * sessions close, as after a logout, on every instance the bus and Redis reach; the periodic
 * re-check of live connections catches any this misses.
 */
export function announceEndedWaysIn(bus: DomainEventBus, ended: EndedWaysIn): void {
  for (const tokenHash of ended.sessions) bus.emit('session-revoked', { userId: ended.userId, tokenHash });
}
