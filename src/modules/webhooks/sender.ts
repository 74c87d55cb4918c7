import http from 'node:http';
import https from 'node:https';
import type { Config } from '../../config';
import type { Database, Db } from '../../db/database';
import { isUnavailable } from '../../db/errors';
import type { ChangeOutbox } from '../../db/write';
import { expandMessages, forgetDoneBefore, outboxHasWork } from './messages-repo';
import { mailAdmins } from './disabled-mail';
import { clearFailing, disableEndpoint, markFailing } from './endpoints-repo';
import { recordAttempt, releaseDeliveries, takeDueDeliveries, type AttemptRecord, type TakenDelivery } from './repo';
import { attemptDelivery, type Outcome } from './attempt';

/** Looks at the outbox this often for deliveries due (a retry's time, another instance's change). */
const POLL_MS = 500;
/**
 * After a change here queued deliveries, and between rounds that did not fill their take, the
 * sender waits this long: what the next writes queue meanwhile goes out in the same round, so a
 * busy workshop costs a few rounds (two commits each) a second rather than one per change.
 */
const GATHER_MS = 20;
/** Messages expanded into deliveries at once, at the start of each round. */
const EXPAND_LIMIT = 500;
/** Deliveries done (delivered or given up), and their messages, are kept this long for the list, then removed. */
const KEEP_MS = 30 * 24 * 3_600_000;
/** How often the deliveries past `KEEP_MS` are looked for. */
const SWEEP_EVERY_MS = 3_600_000;
/** Lanes (an endpoint and a workshop) taken at once, and deliveries of one lane: sent one after the other. */
const TAKE_LIMITS = { lanes: 64, perLane: 50 };
/** Lanes sent side by side to one endpoint at most: a slow receiver holds a few sockets, not the sender. */
const PER_ENDPOINT = 8;
/** Recording outcomes waits out a busy database this many times before leaving them to the lease. */
const RECORD_TRIES = 5;

export interface WebhookSenderDeps {
  config: Pick<Config, 'webhooks' | 'publicUrl'>;
  database: Database;
  changeOutbox: ChangeOutbox;
  /** Counts each attempt by what it came to (`/metrics`: the app's `Metrics`). */
  metrics: { webhookAttempt(outcome: 'succeeded' | 'retried' | 'failed'): void };
}

export interface WebhookSender {
  /** Stops taking deliveries and waits for the attempts in flight. */
  stop(): Promise<void>;
}

/**
 * Sends the webhook outbox in the background (docs/integrations.md#retries-and-order): due
 * deliveries are taken under a lease (`takeDueDeliveries`: lanes from their first pending delivery
 * on, so a workshop's events reach an endpoint in order), each lane posted one delivery after the
 * other, lanes side by side (at most `PER_ENDPOINT` per endpoint), and the outcomes recorded
 * together while the leases are still theirs: two transactions a round however many it sent.
 * A failure waits its turn in `webhooks.retryScheduleS` (with jitter), and the lane waits with it;
 * past the schedule the delivery is given up and the lane goes on. An endpoint failing for
 * `webhooks.disableAfterHours` is disabled and its organization's admins are mailed. An instance
 * dying mid-send leaves its deliveries to the lease: they go out again with the same `webhook-id`.
 */
export function startWebhookSender(deps: WebhookSenderDeps): WebhookSender {
  const { webhooks } = deps.config;
  const agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: PER_ENDPOINT }),
    https: new https.Agent({ keepAlive: true, maxSockets: PER_ENDPOINT }),
  };
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const take = async (): Promise<TakenDelivery[]> => {
    const now = Date.now();
    // Unique to this taking: the lease's end, made distinct by a nonce.
    const claim = `${new Date(now + webhooks.leaseMs).toISOString()}~${Math.random().toString(36).slice(2, 10)}`;
    const at = new Date(now).toISOString();
    // An idle outbox is seen with a plain read: polling takes no write lock (SQLite's one writer).
    if (!(await outboxHasWork(deps.database.db, at))) return [];
    return deps.database.transaction(async (tx) => {
      await expandMessages(tx, at, EXPAND_LIMIT);
      return takeDueDeliveries(tx, at, claim, TAKE_LIMITS);
    });
  };

  const post = (delivery: TakenDelivery) => attemptDelivery(delivery, { allowPrivate: webhooks.allowPrivate, agents });

  /**
   * Posts each lane's deliveries one after the other, stopping a lane at its first failure (the
   * rest wait behind it: `untried`), lanes side by side, at most `PER_ENDPOINT` to one endpoint.
   */
  const postAll = async (deliveries: readonly TakenDelivery[]) => {
    const lanes = new Map<string, TakenDelivery[]>();
    for (const delivery of deliveries) {
      const key = `${delivery.endpointId}\n${delivery.lane}`;
      const lane = lanes.get(key);
      if (lane) lane.push(delivery);
      else lanes.set(key, [delivery]);
    }
    const byEndpoint = new Map<string, TakenDelivery[][]>();
    for (const lane of lanes.values()) {
      const endpointId = lane[0]!.endpointId;
      byEndpoint.set(endpointId, [...(byEndpoint.get(endpointId) ?? []), lane]);
    }
    const outcomes: Outcome[] = [];
    const untried: TakenDelivery[] = [];
    const sendLane = async (lane: TakenDelivery[]) => {
      for (const [index, delivery] of lane.entries()) {
        const outcome = await post(delivery);
        outcomes.push(outcome);
        if (!outcome.ok) return void untried.push(...lane.slice(index + 1));
      }
    };
    await Promise.all(
      [...byEndpoint.values()].map(async (queue) => {
        const worker = async () => {
          for (let lane = queue.shift(); lane; lane = queue.shift()) await sendLane(lane);
        };
        await Promise.all(Array.from({ length: Math.min(PER_ENDPOINT, queue.length) }, worker));
      }),
    );
    return { outcomes, untried };
  };

  /** When a delivery whose `attempts`-th attempt failed is tried again: its turn in the schedule, ±20 %; null past it. */
  const nextAttemptAt = (attempts: number): string | null => {
    const wait = webhooks.retryScheduleS[attempts - 1];
    if (wait === undefined) return null;
    const jittered = wait * 1000 * (0.8 + Math.random() * 0.4);
    return new Date(Date.now() + jittered).toISOString();
  };

  const record = async (tx: Db, outcomes: readonly Outcome[], untried: readonly TakenDelivery[]) => {
    const now = new Date();
    await releaseDeliveries(tx, untried);
    const answered = new Set<string>();
    const failing = new Set<string>();
    for (const { delivery, ok, statusCode, error } of outcomes) {
      const retryAt = ok ? null : nextAttemptAt(delivery.attempts + 1);
      const attempt: AttemptRecord = {
        seq: delivery.seq,
        claim: delivery.claim,
        status: ok ? 'succeeded' : retryAt ? 'pending' : 'failed',
        lastStatusCode: statusCode,
        lastError: error,
        nextAttemptAt: retryAt ?? now.toISOString(),
      };
      // A lease that ran out meanwhile: another instance has the delivery now, and records it.
      if (!(await recordAttempt(tx, attempt))) continue;
      if (retryAt) wakeAt(Date.parse(retryAt));
      (ok ? answered : failing).add(delivery.endpointId);
    }
    if (answered.size > 0) await clearFailing(tx, [...answered]);
    for (const endpointId of failing) {
      if (answered.has(endpointId)) continue;
      const endpoint = await markFailing(tx, endpointId, now.toISOString());
      if (!endpoint?.enabled || !endpoint.failingSince) continue;
      const failingMs = now.getTime() - Date.parse(endpoint.failingSince);
      if (failingMs < webhooks.disableAfterHours * 3_600_000) continue;
      if (!(await disableEndpoint(tx, endpointId, now.toISOString()))) continue;
      await mailAdmins(tx, endpoint, deps.config.publicUrl, webhooks.disableAfterHours);
    }
  };

  const recordAll = async ({ outcomes, untried }: { outcomes: Outcome[]; untried: TakenDelivery[] }) => {
    for (let attempt = 1; attempt <= RECORD_TRIES; attempt++) {
      try {
        await deps.database.transaction((tx) => record(tx, outcomes, untried));
        for (const { ok, delivery } of outcomes)
          deps.metrics.webhookAttempt(
            ok ? 'succeeded' : delivery.attempts + 1 >= webhooks.retryScheduleS.length + 1 ? 'failed' : 'retried',
          );
        return;
      } catch (err) {
        if (!isUnavailable(err) || attempt === RECORD_TRIES) {
          console.error('[webhooks] could not record deliveries; their leases will hand them on', err);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  };

  const drain = async () => {
    while (!stopped) {
      again = false;
      let taken: TakenDelivery[];
      try {
        taken = await take();
      } catch (err) {
        if (!stopped) console.warn(`[webhooks] could not read the outbox: ${(err as Error).message}`);
        return;
      }
      if (taken.length === 0 && !again) return;
      if (taken.length > 0) await recordAll(await postAll(taken));
      if (taken.length < TAKE_LIMITS.lanes) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
    }
  };

  const run = () => {
    if (stopped) return;
    if (running) {
      // Something was queued while a round ran: look again before resting.
      again = true;
      return;
    }
    running = drain()
      .catch((err) => console.error('[webhooks] the sender failed; it goes on at the next poll', err))
      .finally(() => (running = null));
  };

  let gathering: NodeJS.Timeout | undefined;
  /** A retry due sooner than the next poll is sent on time: the sender wakes for it. */
  let waking: { at: number; timer: NodeJS.Timeout } | undefined;
  function wakeAt(at: number) {
    const wait = at - Date.now();
    if (wait >= POLL_MS || (waking && waking.at <= at)) return;
    clearTimeout(waking?.timer);
    const timer = setTimeout(
      () => {
        waking = undefined;
        run();
      },
      Math.max(0, wait),
    );
    timer.unref();
    waking = { at, timer };
  }
  const soon = () => {
    if (gathering || stopped) return;
    gathering = setTimeout(() => {
      gathering = undefined;
      run();
    }, GATHER_MS);
  };

  const timer = setInterval(run, POLL_MS);
  timer.unref();
  // Every instance sweeps (deleting is idempotent), once at start and then every hour.
  const sweep = () =>
    void deps.database
      .transaction((tx) => forgetDoneBefore(tx, new Date(Date.now() - KEEP_MS).toISOString()))
      .catch((err: Error) => console.warn(`[webhooks] could not remove old deliveries: ${err.message}`));
  const sweeper = setInterval(sweep, SWEEP_EVERY_MS);
  sweeper.unref();
  setImmediate(sweep);
  const stopListening = deps.changeOutbox.onQueued(soon);
  setImmediate(run);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearInterval(sweeper);
      clearTimeout(gathering);
      clearTimeout(waking?.timer);
      stopListening();
      await running;
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
