/*
 * The console's writes that wait for the server: the participant page's outbox
 * (web/shared/outbox.ts), holding plain REST writes. A write that cannot reach the server (it is
 * away, the network is) or meets an ended session is kept in this browser, shown as waiting, and
 * sent when the server is back or the person has signed in again; its `Idempotency-Key`, made
 * once, goes with every attempt, so it is written once (docs/api.md#idempotent-writes). The
 * form that made it is told at once whether it went, was refused (the service's words), or waits.
 * See docs/pages.md#writes-that-wait.
 */
import { effect, signal } from '@preact/signals';
import { ApiError } from 'workshop-sdk';
import { Outbox, type Waiting } from '../shared/outbox';
import { api, problemText } from './api';
import { t } from './i18n';
import { me } from './session';
import { sessionEnded, signedInAgain } from './session-end';

/** A REST write, as sent: the method, the route, its path parameters and its body. */
export interface Write {
  method: 'post' | 'put' | 'delete';
  path: string;
  params: Record<string, string>;
  body?: unknown;
}
export type WaitingWrite = Waiting<Write, Write>;

/** What waits, for the list the console shows; and the writes the server refused once they were sent late. */
export const waitingWrites = signal<WaitingWrite[]>([]);
export const lateRefusals = signal<string[]>([]);

type Settle = { sent: () => void; refused: (error: ApiError) => void; waits: () => void };
/** The forms waiting for their write's first outcome, by its key. */
const settling = new Map<string, Settle>();

type Send = (path: string, init: object) => Promise<unknown>;

/** The signed-in account's outbox: each account's writes wait apart, and go only with its own token. */
let current: { userId: string; outbox: Outbox<Write, Write> } | null = null;
/** Stands for a write of an account no longer signed in here: it waits, unsent, for that account. */
const notSignedIn = () => new ApiError(401, 'unauthenticated', t('console.problem.other_account'));

function outboxFor(userId: string): Outbox<Write, Write> {
  if (current?.userId === userId) return current.outbox;
  const outbox: Outbox<Write, Write> = new Outbox<Write, Write>(`workshop-console-outbox:${userId}`, {
    resolve: (write) => write,
    async send(write, key) {
      if (current?.outbox !== outbox) throw notSignedIn();
      const call = api[write.method] as unknown as Send;
      await call(write.path, {
        params: { path: write.params },
        ...(write.body !== undefined && { body: write.body }),
        headers: { 'Idempotency-Key': key },
      });
      settling.get(key)?.sent();
      settling.delete(key);
    },
    refused(item, error) {
      const form = settling.get(item.key);
      settling.delete(item.key);
      if (form) form.refused(error);
      else lateRefusals.value = [...lateRefusals.value, `${item.label}: ${problemText(error)}`];
    },
    // The session ended: the console asks to sign in again (views/sign-in-again.tsx), then sends.
    ended() {
      if (current?.outbox === outbox) sessionEnded.value = true;
    },
    changed() {
      if (current?.outbox !== outbox) return;
      waitingWrites.value = [...outbox.items];
      if (outbox.status !== 'waiting') return;
      for (const [key, form] of settling) {
        settling.delete(key);
        form.waits();
      }
    },
  });
  current = { userId, outbox };
  return outbox;
}

// Whoever signs in: their waiting writes are shown, and sent (also what a reload found waiting).
effect(() => {
  const id = me.value?.id;
  if (!id) {
    current = null;
    waitingWrites.value = [];
    return;
  }
  const outbox = outboxFor(id);
  waitingWrites.value = [...outbox.items];
  queueMicrotask(() => outbox.kick());
});
signedInAgain.subscribe((count) => count > 0 && current?.outbox.kick());

/** Sends the server what the live connection's return tells is back. */
export const sendWaiting = () => current?.outbox.kick();

/**
 * Writes through the outbox. Resolves `'sent'` once written, or `'waiting'` once it is kept to
 * be sent later; rejects with the service's refusal (the form says it, as for any call).
 */
export function write(label: string, request: Write): Promise<'sent' | 'waiting'> {
  const userId = me.value?.id;
  if (!userId) return Promise.reject(notSignedIn());
  const outbox = outboxFor(userId);
  return new Promise((resolve, reject) => {
    const item = outbox.add(request, label);
    if (!outbox.items.includes(item)) return resolve('sent');
    // Known to be offline, or behind writes already waiting: it waits with them.
    if (outbox.status === 'waiting') return resolve('waiting');
    settling.set(item.key, { sent: () => resolve('sent'), refused: reject, waits: () => resolve('waiting') });
  });
}
