import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A delivery as the receiver took it: verified by the reference `standardwebhooks` client. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  type: string;
  data: Record<string, unknown>;
  body: string;
  /** The status this receiver answered. */
  answered: number;
}

/**
 * An endpoint on 127.0.0.1 that verifies every delivery with `standardwebhooks` (a client nobody
 * here wrote) against the secrets it is told, and answers `status()`: 204, or what a test sets
 * (a 503 while "down"). `down()` closes the port altogether, `up()` opens it again on the same port.
 */
export interface WebhookReceiver {
  url: string;
  /** Every attempt that verified, in arrival order (failures answered included). */
  attempts: Received[];
  /** The deliveries answered with a 2xx, in arrival order. */
  delivered(): Received[];
  /** Attempts whose signature did not verify against any known secret. */
  refused: string[];
  /** Requests received and not answered yet. */
  pending(): number;
  trust(secret: string): void;
  answerWith(status: number, delayMs?: number): void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secrets: string[] = [];
  const attempts: Received[] = [];
  const refused: string[] = [];
  let status = 204;
  let delayMs = 0;
  let inFlight = 0;
  let server: Server;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((request, response) => void answer(request, response));
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    inFlight += 1;
    response.once('close', () => (inFlight -= 1));
    const body = await readBody(request);
    const headers = {
      'webhook-id': String(request.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
    };
    const verified = secrets.some((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (!verified) {
      refused.push(headers['webhook-id']);
      response.writeHead(401).end();
      return;
    }
    const parsed = JSON.parse(body) as { type: string; data: Record<string, unknown> };
    const answered = status;
    if (delayMs) await new Promise((done) => setTimeout(done, delayMs));
    attempts.push({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      type: parsed.type,
      data: parsed.data,
      body,
      answered,
    });
    response.writeHead(answered).end(answered >= 400 ? 'not now' : undefined);
  };
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });

  await listen();
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    attempts,
    delivered: () => attempts.filter((a) => a.answered < 300),
    refused,
    pending: () => inFlight,
    trust: (secret) => secrets.push(secret),
    answerWith: (next, delay = 0) => {
      status = next;
      delayMs = delay;
    },
    down: close,
    up: listen,
    close,
  };
}
