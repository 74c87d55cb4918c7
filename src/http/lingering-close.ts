import type { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';

/*
 * A lingering close, as nginx makes one (docs/operations.md#a-body-over-the-limit). An answer
 * given before the request's body has all arrived (a 413 for a body over the limit) closes its
 * connection; closed at once, the client's next bytes meet a socket that is gone, the system
 * answers them with a reset, and a client still sending may see that reset before it has read
 * the answer. So the connection is half-closed instead: the answer and then the end of the stream
 * go out, what the client still sends is read and thrown away (Node's parser drops the body of a
 * request nobody reads; nothing is kept), and the socket is closed once the client closes its
 * side, the whole body has come, about `bytes` more have come, or `ms` have passed, whichever is
 * first: a client that never stops sending is closed all the same.
 */

export interface LingerBounds {
  /** How long a connection lingers at most. */
  ms: number;
  /** How many more bytes it reads at most (give or take what arrives in 10 ms). */
  bytes: number;
}

export const LINGER_BOUNDS: LingerBounds = { ms: 3_000, bytes: 8 * 1024 * 1024 };

/** Makes every connection of `server` that closes with a request still arriving linger within `bounds`. */
export function lingerBeforeClosing(server: Server, bounds: LingerBounds = LINGER_BOUNDS): void {
  const current = new WeakMap<Socket, IncomingMessage>();
  server.prependListener('request', (request: IncomingMessage) => current.set(request.socket, request));
  server.on('connection', (socket: Socket) => {
    // Node's HTTP server ends a connection whose answer said `Connection: close` with
    // `destroySoon()`: the one place that knows the answer has been handed to the socket.
    socket.destroySoon = () => {
      const request = current.get(socket);
      if (request && !request.complete) linger(socket, request, bounds);
      else Socket.prototype.destroySoon.call(socket);
    };
  });
}

const lingering = new WeakSet<Socket>();
/**
 * How often a lingering connection's bytes are counted: Node's parser reads and drops them without
 * an event of ours on the way, so `bytes` is a bound give or take what arrives in this long.
 */
const CHECK_MS = 10;

function linger(socket: Socket, request: IncomingMessage, bounds: LingerBounds): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  // The answer is flushed first, then the end of our side of the stream: the client reads both.
  socket.end();
  const readBefore = socket.bytesRead;
  const started = Date.now();
  const close = () => {
    clearInterval(check);
    socket.destroy();
  };
  const check = setInterval(() => {
    if (socket.bytesRead - readBefore >= bounds.bytes || Date.now() - started >= bounds.ms) close();
  }, CHECK_MS);
  check.unref();
  // A resumed request nobody listens to has the rest of its body read and dropped by the parser
  // (as Node does after an answer), reading again where the body's backpressure had stopped it.
  request.resume();
  // Closed once there is nothing left to read: the whole body came, or the client closed its side.
  request.once('end', close);
  request.once('error', close);
  socket.once('end', close);
  socket.once('close', () => clearInterval(check));
}
