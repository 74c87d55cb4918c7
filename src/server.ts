import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { serve } from '@hono/node-server';
import { createApp } from './app';
import { lingerBeforeClosing } from './http/lingering-close';
import { refuseUpgrade } from './http/upgrade';
import type { AppDeps } from './deps';
import { startExportRunner } from './modules/exports/jobs';
import { startKeySweeper } from './modules/idempotency/keys';
import { startMailSender } from './modules/mail/sender';
import { watchParticipation } from './modules/webhooks/participation';
import { startWebhookSender } from './modules/webhooks/sender';
import { WriteGate } from './ops/drain';
import { attachRealtime, type Realtime } from './realtime/index';

export interface RunningServer {
  /** Actual port (the configured one, or the one the OS chose for port 0). */
  port: number;
  url: string;
  httpServer: Server;
  /** Socket.IO on the same port. */
  realtime: Realtime;
  /**
   * Stops accepting connections, disconnects Socket.IO clients and closes sync connections, lets
   * requests in flight finish for a grace period (their events still reach other instances), then
   * cuts what is left, stops the fan-out and closes the documents; resolves once every connection
   * is gone. The database is left to the caller (close it after this resolves).
   */
  close(): Promise<void>;
}

export interface ServerOptions {
  port?: number;
  hostname?: string;
  app?: ReturnType<typeof createApp>;
  /**
   * How long `close()` waits for the sync endpoint to compact and close its documents and for the
   * last events to leave, and, from the start, for the mail being sent and the export being made
   * to finish.
   */
  closeLimitMs?: number;
  /**
   * How long `close()` lets requests in flight finish before it stops their writes and cuts every
   * connection. The app `createServer` builds is the one whose writes stop (not an `app` given).
   */
  shutdownGraceMs?: number;
  /**
   * Whether this instance sends the webhook outbox (true unless told): false leaves it to other
   * instances, as the webhook bench does to measure what the writes alone cost.
   */
  sendsWebhooks?: boolean;
}

// Both together stay under the 10 s after which `main.ts` gives up on a clean exit.
const CLOSE_LIMIT_MS = 5_000;
const SHUTDOWN_GRACE_MS = 3_000;
/**
 * Once the grace period is over and the commits under way have ended, how long the requests they
 * belong to have to send their answers before the connections are cut (an answer is written within
 * milliseconds of its commit; the requests that did not commit answer 503 as quickly).
 */
const ANSWER_WAIT_MS = 1_000;

/** One node HTTP server carrying the REST app; Socket.IO and the Yjs endpoint attach to it. */
export function createServer(deps: AppDeps, options: ServerOptions = {}): Promise<RunningServer> {
  // The drain stops the app's writes before it cuts the connections of requests still running.
  const writes = new WriteGate();
  const app = options.app ?? createApp({ ...deps, database: writes.guard(deps.database) });
  return new Promise((resolve, reject) => {
    const httpServer = serve({
      fetch: app.fetch,
      port: options.port ?? deps.config.port,
      hostname: options.hostname,
    }) as Server;
    // A 413 given while the body still arrives is read by the client, not lost to a reset.
    lingerBeforeClosing(httpServer);
    let closing = false;
    // Requests not answered yet: once draining, each answer closes its connection.
    const unanswered = new Set<ServerResponse>();
    httpServer.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
      if (closing) response.setHeader('Connection', 'close');
      unanswered.add(response);
      response.once('close', () => unanswered.delete(response));
    });
    // Upgraded sockets leave the HTTP server's bookkeeping but still hold close() open: tracked here.
    const sockets = new Set<Socket>();
    httpServer.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });

    const realtime = attachRealtime(deps, httpServer);
    // With SMTP_URL the outbox is sent in the background; without it mail stays there.
    const mailSender = startMailSender(deps);
    // Pending exports are made in a worker thread, here or by another instance on the database.
    const exportRunner = startExportRunner(deps);
    // The webhook outbox is sent in the background, by whichever instance takes each delivery first.
    const webhookSender = options.sendsWebhooks === false ? { stop: async () => {} } : startWebhookSender(deps);
    const stopParticipationWatch = watchParticipation(deps);
    // Idempotency keys' answers are kept 24 hours, then swept (by every instance; deleting is idempotent).
    const keySweeper = startKeySweeper(deps.database);
    // Socket.IO's engine answers its own path (it leaves others alone: `destroyUpgrade: false`).
    const socketIoPath = `${realtime.io.path()}/`;
    httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (request.url?.startsWith(socketIoPath)) return;
      if (closing) return refuseUpgrade(socket, 'service_unavailable', 'The server is shutting down.');
      let taken: boolean;
      try {
        taken = deps.collab.handleUpgrade(request, socket, head);
      } catch (err) {
        console.error('[server] upgrade failed', err);
        return refuseUpgrade(socket, 'internal_error', 'Something went wrong on our side.');
      }
      if (!taken) refuseUpgrade(socket, 'not_found', 'Nothing to upgrade to here.');
    });

    httpServer.once('error', reject);
    // A failure before the server is handed over fails the start rather than going unhandled.
    httpServer.once('listening', () => void whenListening().catch(reject));
    async function whenListening(): Promise<void> {
      const { port } = httpServer.address() as AddressInfo;
      await realtime.ready;
      // Until now `/ready` said "starting": load balancers wait for the fan-out before sending traffic.
      deps.readiness.markServing();
      let closed: Promise<void> | undefined;
      const shutDown = async () => {
        closing = true;
        // The load balancer's readiness check sends nothing new here from now on (GET /ready: 503).
        deps.readiness.markDraining();
        keySweeper.stop();
        stopParticipationWatch();
        // First stop accepting: nothing new arrives while the rest closes. A request arriving on a
        // connection kept alive from before is refused (503, `refuseWhileDraining`); the ones in
        // flight finish, and every answer from now on closes its connection, so the connections
        // end with their last answer rather than when the grace period cuts them.
        for (const response of unanswered) if (!response.headersSent) response.setHeader('Connection', 'close');
        const stopped = new Promise<void>((done) => httpServer.close(() => done()));
        httpServer.closeIdleConnections();
        const limitMs = options.closeLimitMs ?? CLOSE_LIMIT_MS;
        // The mail being sent and the export being made finish meanwhile, within the same limit.
        const background = [
          withinLimit(mailSender.stop(), limitMs, 'finishing the mail being sent'),
          withinLimit(exportRunner.stop(), limitMs, 'finishing the export being made'),
          withinLimit(webhookSender.stop(), limitMs, 'finishing the webhook deliveries being sent'),
        ];
        // Live connections hold the server open: Socket.IO clients are disconnected (the SDK
        // reconnects at once, through the balancer, to another instance, and resumes by
        // `since_seq`), and sync connections closed with 1001, which y-websocket reconnects on.
        realtime.disconnect();
        const syncClosed = withinLimit(
          Promise.resolve().then(() => deps.collab.closeConnections()),
          limitMs,
          'closing the sync connections',
        );
        httpServer.closeIdleConnections();
        // Requests in flight get a grace period; then whatever is still open (slow clients, upgrades
        // nobody finished, requests stuck on a lock) is cut, so close() always ends. A request cut
        // must not commit afterwards, unanswered: the app's writes stop first (those not committed
        // yet roll back and answer 503), the commits under way end and their answers go out.
        const cutOff = async () => {
          await writes.close();
          await withinLimit(allAnswered(unanswered), ANSWER_WAIT_MS, 'answering the requests in flight');
          httpServer.closeAllConnections();
          for (const socket of sockets) socket.destroy();
        };
        // cutOff cannot fail: the gate's close only waits, and withinLimit logs what goes wrong.
        const cut = setTimeout(() => void cutOff(), options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
        await stopped;
        clearTimeout(cut);
        await syncClosed;
        // Only now do events stop going out and the documents close: a write that finished during
        // the grace period still had its events sent (to other instances' sockets, through Redis)
        // and its document updates stored and relayed. Side by side, so the waits add up to one limit.
        await Promise.all([
          withinLimit(realtime.close(), limitMs, 'sending the last events'),
          withinLimit(
            Promise.resolve().then(() => deps.collab.close()),
            limitMs,
            'closing the sync endpoint',
          ),
          ...background,
        ]);
        deps.attempts.close();
      };
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        httpServer,
        realtime,
        close: () => (closed ??= shutDown()),
      });
    }
  });
}

/** Resolves once every response in `unanswered` has closed (it deletes them as they do). */
async function allAnswered(unanswered: ReadonlySet<ServerResponse>): Promise<void> {
  // Each round waits for those unanswered when it began; what arrived meanwhile (refusals) comes next.
  while (unanswered.size > 0)
    await Promise.all([...unanswered].map((response) => new Promise((done) => response.once('close', done))));
}

/** Waits for `task`, but no longer than `limitMs`; a failure or an overrun is logged, not thrown. */
async function withinLimit(task: Promise<void>, limitMs: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((done) => {
    timer = setTimeout(() => done('expired'), limitMs);
  });
  try {
    const outcome = await Promise.race([task.then(() => 'done' as const), expired]);
    if (outcome === 'expired') console.error(`[server] ${what} took longer than ${limitMs} ms; going on`);
  } catch (err) {
    console.error(`[server] ${what} failed`, err);
  } finally {
    clearTimeout(timer);
  }
}
