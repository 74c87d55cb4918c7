import { applyAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness';
import type { Db } from '../db/database';
import { isUnavailable } from '../db/errors';
import { AppError } from '../http/errors';
import { tokensAlive } from '../lib/tokens-alive';
import { accessKey, findAccess, findAccesses } from '../modules/access/load';
import { liveJoinRefused } from '../modules/access/sso';
import type { WorkshopDocument } from './document';
import type { DocumentLifecycle } from './documents';
import { ownAwarenessEntries } from './guard';
import type { CollabExtension } from './hooks';
import { answeredState, hasStoredState, newerMessages, PendingSync, storedSyncAnswer } from './first-sync';
import { awarenessMessage, CLOSE, readClientMessage, syncStep1Message, syncStep2Message } from './protocol';
import { SyncClient, type ConnectOutcome, type SyncHost } from './sync-server';
import type { SessionCheck } from './types';

/** A connection that never asks for its first sync still joins its document after this long. */
const JOIN_UNASKED_AFTER_MS = 1_000;
/** Memberships read per statement when connections are checked again. */
const RECHECK_BATCH = 500;

/**
 * What happens on a sync socket once the endpoint accepted it: joining a document (members only,
 * checked again here; to a document not loaded here, after a first sync answered from its stored
 * state, see `first-sync.ts`), the y-websocket sync and awareness messages, and leaving. As an
 * extension, it relays awareness changes to this instance's sockets.
 */
export class SyncSessions implements SyncHost, CollabExtension {
  constructor(
    private readonly registry: DocumentLifecycle,
    private readonly db: Db,
    private readonly auth: Pick<SessionCheck, 'isAlive'>,
  ) {}

  async connect(workshopId: string, client: SyncClient): Promise<ConnectOutcome> {
    if (this.registry.closed) return 'shutdown';
    const access = await findAccess(this.db, workshopId, client.userId);
    if (!access) return 'notFound';
    const session = { userId: client.userId, method: client.signInMethod };
    if (await liveJoinRefused(this.db, session, access.workshop)) return 'ssoRequired';
    if (!this.registry.loaded(workshopId)) {
      const stored = await this.registry.stored(workshopId);
      if (hasStoredState(stored)) {
        client.pending = new PendingSync(workshopId, stored);
        client.pending.timer = setTimeout(() => client.serially(() => this.join(client)), JOIN_UNASKED_AFTER_MS);
        return 'joined';
      }
    }
    // The workshop exists and the user may use it: a document dropped between its load and this
    // join (a write on it rolled back) is a moment to retry, not a final 4404. Had the workshop
    // gone meanwhile, the reconnect's check says so.
    const entry = await this.registry.open(workshopId);
    if (!entry) return 'retry';
    return (await this.registry.locks.run(workshopId, () => this.attach(client, entry, []))) ? 'joined' : 'retry';
  }

  /**
   * Joins the client to the loaded document (its lock held): it gets `first`, then the server's
   * step 1 and the cursors. False when the document was unloaded meanwhile.
   */
  private attach(client: SyncClient, entry: WorkshopDocument, first: Uint8Array[]): boolean {
    if (this.registry.loaded(entry.workshopId) !== entry) return false;
    clearTimeout(entry.unloadTimer);
    entry.clients.add(client);
    client.document = entry;
    for (const message of first) client.send(message);
    client.send(syncStep1Message(entry.doc));
    const states = [...entry.awareness.getStates().keys()];
    if (states.length > 0) client.send(awarenessMessage(entry.awareness, states));
    return true;
  }

  /**
   * Loads the document of a connection whose first sync was answered from the stored state, and
   * joins it: what was stored since that answer is sent first, then the messages that waited are
   * handled in the order they came.
   */
  private async join(client: SyncClient) {
    const pending = client.pending;
    if (!pending) return;
    client.pending = undefined;
    clearTimeout(pending.timer);
    if (!client.isOpen) return;
    if (this.registry.closed) return client.close(CLOSE.shutdown.code, CLOSE.shutdown.reason);
    try {
      // Access was checked as it connected: a document dropped meanwhile is a moment (see `connect`).
      const entry = await this.registry.open(pending.workshopId);
      if (!entry) return client.close(CLOSE.retry.code, CLOSE.retry.reason);
      const answered = answeredState(pending.stored);
      const joined = await this.registry.locks.run(entry.workshopId, () => {
        // What was stored or relayed since the answer comes from the copy itself: the lock is
        // never held waiting on the database. Holding exactly what the answer was made from, the
        // copy has nothing more to send.
        const unchanged =
          entry.snapshotVersion === pending.stored.version &&
          entry.lastUpdateId === pending.lastUpdateId &&
          entry.unnumbered === 0;
        return this.attach(client, entry, unchanged ? [] : newerMessages(entry.doc, answered));
      });
      if (!joined) return client.close(CLOSE.retry.code, CLOSE.retry.reason);
    } catch (err) {
      console.error(
        `[collab] could not load the document of workshop ${pending.workshopId} for a sync connection`,
        err,
      );
      return client.close(CLOSE.retry.code, CLOSE.retry.reason);
    }
    for (const data of pending.queue) await this.process(client, data);
  }

  /** A message from the client: handled after the ones before it (`SyncClient.serially`). */
  receive(client: SyncClient, data: Uint8Array): void {
    client.serially(() => this.process(client, data));
  }

  private async process(client: SyncClient, data: Uint8Array): Promise<void> {
    const pending = client.pending;
    if (pending) {
      if (client.isOpen) await this.guarded(client, () => this.receiveBeforeJoining(client, pending, data));
      return;
    }
    const entry = client.document;
    // Messages still arriving after the server closed the connection (refused, revoked) are dropped.
    if (!entry || !client.isOpen || this.registry.loaded(entry.workshopId) !== entry) return;
    await this.guarded(client, () => this.handle(entry, client, data));
  }

  /**
   * The client's first step 1 is answered from the stored state, and the document loads once that
   * answer has left (loading first would hold it back). Anything else waits for the document; if it
   * comes before the answer was asked for, the document loads at once.
   */
  private async receiveBeforeJoining(client: SyncClient, pending: PendingSync, data: Uint8Array) {
    const message = readClientMessage(data);
    if (message.kind === 'syncStep1' && !pending.answered) {
      pending.answered = true;
      // From here the answer's send completes, or the socket closes and `disconnect` drops this.
      clearTimeout(pending.timer);
      const answer = storedSyncAnswer(pending.stored, message.stateVector);
      answer.forEach((part, i) =>
        client.send(
          part,
          i === answer.length - 1 ? () => setImmediate(() => client.serially(() => this.join(client))) : undefined,
        ),
      );
      return;
    }
    pending.queue.push(data);
    if (!pending.answered) await this.join(client);
  }

  private async guarded(client: SyncClient, fn: () => Promise<void> | void) {
    try {
      await fn();
    } catch (err) {
      if (isUnavailable(err)) {
        // The database away or busy is no fault of the message: 4400 would stop the client for
        // good. It reconnects instead, and its sync sends again whatever was not taken.
        client.close(CLOSE.retry.code, CLOSE.retry.reason);
        return;
      }
      // Whatever a client sends, a bad message ends its own connection and nothing else.
      if (!(err instanceof AppError))
        console.warn(`[collab] closed a sync connection after a message it could not take: ${(err as Error)?.message}`);
      client.close(CLOSE.badMessage.code, CLOSE.badMessage.reason);
    }
  }

  private async handle(entry: WorkshopDocument, client: SyncClient, data: Uint8Array) {
    const message = readClientMessage(data);
    switch (message.kind) {
      case 'syncStep1':
        // Under the document's lock: a change not stored yet is never sent.
        await this.registry.locks.run(entry.workshopId, () => {
          if (this.registry.loaded(entry.workshopId) === entry)
            client.send(syncStep2Message(entry.doc, message.stateVector));
        });
        break;
      case 'update':
        // The membership is checked with the write itself (`clientChange`).
        if (!(await this.stillAllowed(undefined, client))) return;
        // Until the client answers the server's last step 1 (sent as it joined, or when a write of
        // its change failed), its updates may build on changes the server lacks: its own, lost
        // with a write that failed. The answer brings them, and everything sent before it.
        if (message.answer) client.answered = true;
        await this.registry.persistence.clientChange(entry, client, client.userId, message.update, {
          answerPending: !client.answered,
        });
        break;
      case 'awareness': {
        if (!(await this.stillAllowed(entry, client))) return;
        if (this.registry.loaded(entry.workshopId) !== entry) return;
        const own = ownAwarenessEntries(entry.awareness, client.awarenessIds, message.update);
        if (own) applyAwarenessUpdate(entry.awareness, own, client);
        break;
      }
      case 'queryAwareness':
        client.send(awarenessMessage(entry.awareness, [...entry.awareness.getStates().keys()]));
        break;
      case 'ignored':
        break;
    }
  }

  /**
   * Whether the connection's token still works and its user is still a member; closes it
   * otherwise (4401, 4404). Checked on every write, on the bus's revocations, and periodically,
   * so a token revoked or a membership lost through another instance ends here too.
   */
  async stillAllowed(entry: WorkshopDocument | undefined, client: SyncClient): Promise<boolean> {
    if (!(await this.auth.isAlive(client.tokenHash))) {
      client.close(CLOSE.unauthenticated.code, CLOSE.unauthenticated.reason);
      return false;
    }
    if (!entry || (await findAccess(this.db, entry.workshopId, client.userId))) return true;
    client.close(CLOSE.notFound.code, CLOSE.notFound.reason);
    return false;
  }

  /**
   * Checks connections again (as `stillAllowed` does), after anything that may have ended their
   * rights, and on every ping: each token once however many connections share it, then the
   * memberships of those whose token works in batched reads (`findAccesses`), so a check of every
   * connection costs a few statements, not two per connection.
   */
  async recheck(clients: readonly SyncClient[]): Promise<void> {
    const alive = await tokensAlive(
      (tokenHash) => this.auth.isAlive(tokenHash),
      clients.map((client) => client.tokenHash),
    );
    const members: Array<{ client: SyncClient; workshopId: string }> = [];
    for (const client of clients) {
      if (!alive.get(client.tokenHash)) client.close(CLOSE.unauthenticated.code, CLOSE.unauthenticated.reason);
      else {
        const workshopId = client.document?.workshopId ?? client.pending?.workshopId;
        if (workshopId) members.push({ client, workshopId });
      }
    }
    for (let at = 0; at < members.length; at += RECHECK_BATCH) {
      const batch = members.slice(at, at + RECHECK_BATCH);
      const accesses = await findAccesses(
        this.db,
        batch.map(({ client, workshopId }) => ({ workshopId, userId: client.userId })),
      );
      for (const { client, workshopId } of batch) {
        const access = accesses.get(accessKey(workshopId, client.userId));
        if (!access) client.close(CLOSE.notFound.code, CLOSE.notFound.reason);
        // Its organization came to require single sign-on of a password session.
        else if (
          await liveJoinRefused(this.db, { userId: client.userId, method: client.signInMethod }, access.workshop)
        )
          client.close(CLOSE.ssoRequired.code, CLOSE.ssoRequired.reason);
      }
    }
  }

  disconnect(client: SyncClient): void {
    if (client.pending) {
      clearTimeout(client.pending.timer);
      client.pending = undefined;
    }
    const entry = client.document;
    if (!entry || !entry.clients.delete(client)) return;
    // Their cursors leave with them, here and on other instances.
    if (client.awarenessIds.size > 0) removeAwarenessStates(entry.awareness, [...client.awarenessIds], null);
    if (entry.clients.size === 0 && this.registry.loaded(entry.workshopId) === entry)
      this.registry.unloadLater(entry, this.registry.options.graceMs);
  }

  /** Relays an awareness change to this instance's clients (other instances: `redis-extension.ts`). */
  onAwarenessUpdate(entry: WorkshopDocument, changed: number[], origin: unknown): void {
    if (origin instanceof SyncClient) {
      for (const id of changed) {
        if (entry.awareness.getStates().has(id)) origin.awarenessIds.add(id);
        else origin.awarenessIds.delete(id);
      }
    }
    entry.broadcast(awarenessMessage(entry.awareness, changed));
  }
}
