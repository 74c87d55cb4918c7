import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A small TCP load balancer for fleet tests, in front of several instances on loopback: each new
 * connection goes to the next instance in turn; an instance that refuses the connection (stopped,
 * killed, draining) is skipped for the next one, as a platform's proxy does. Connections are
 * passed through byte for byte, so HTTP, Socket.IO and the sync endpoint's WebSockets all work.
 *
 * `pin(pathPrefix, index)` sends new connections whose first request is for that path to one
 * instance while it takes connections (to put a client on a known instance); the others still go
 * round. What was pinned falls back to round-robin once that instance refuses.
 */
export interface RoundRobinProxy {
  port: number;
  url: string;
  /** The instances' ports, in turn order. */
  readonly backends: number[];
  pin(pathPrefix: string, index: number): void;
  unpin(): void;
  /** Open connections to one instance now. */
  openTo(index: number): number;
  close(): Promise<void>;
}

/** The longest first chunk waited for before a connection is routed without looking at it. */
const ROUTE_WAIT_MS = 200;

export async function startRoundRobinProxy(backends: number[]): Promise<RoundRobinProxy> {
  let turn = 0;
  const pins = new Map<string, number>();
  const open = new Map<number, Set<Socket>>();
  const openSet = (index: number) => open.get(index) ?? open.set(index, new Set()).get(index)!;
  const clients = new Set<Socket>();

  const pinnedIndex = (firstChunk: Buffer | undefined): number | undefined => {
    if (!firstChunk) return undefined;
    const path = /^[A-Z]+ (\S+) HTTP\//.exec(firstChunk.subarray(0, 2048).toString('latin1'))?.[1];
    if (!path) return undefined;
    for (const [prefix, index] of pins) if (path.startsWith(prefix)) return index;
    return undefined;
  };

  const server: Server = createServer((client) => {
    clients.add(client);
    client.once('close', () => clients.delete(client));
    client.on('error', () => {});
    const held: Buffer[] = [];
    let routed = false;
    const onData = (chunk: Buffer) => {
      held.push(chunk);
      if (!routed) route(chunk);
    };
    client.on('data', onData);
    const timer = setTimeout(() => route(undefined), ROUTE_WAIT_MS);

    function route(firstChunk: Buffer | undefined) {
      routed = true;
      clearTimeout(timer);
      // Pause reading until the instance is connected; what came meanwhile is in `held`.
      client.pause();
      const pinned = pinnedIndex(firstChunk);
      const order: number[] = [];
      if (pinned !== undefined) order.push(pinned);
      for (let i = 0; i < backends.length; i++) {
        const index = (turn + i) % backends.length;
        if (index !== pinned) order.push(index);
      }
      turn = (turn + 1) % backends.length;
      tryNext(order, 0);
    }

    function tryNext(order: number[], at: number) {
      if (client.destroyed) return;
      if (at >= order.length) return client.destroy();
      const index = order[at]!;
      const upstream = connect({ host: '127.0.0.1', port: backends[index]! });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        openSet(index).add(upstream);
        client.off('data', onData);
        for (const chunk of held.splice(0)) upstream.write(chunk);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.on('error', () => {
        // Refused before anything was sent: the next instance gets the connection.
        if (!connected) return tryNext(order, at + 1);
        client.destroy();
      });
      upstream.once('close', () => {
        openSet(index).delete(upstream);
        if (connected) client.destroy();
      });
      client.once('close', () => upstream.destroy());
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    backends,
    pin: (pathPrefix, index) => void pins.set(pathPrefix, index),
    unpin: () => pins.clear(),
    openTo: (index) => openSet(index).size,
    async close() {
      for (const client of clients) client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
