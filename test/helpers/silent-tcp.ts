import { createServer, type Socket } from 'node:net';

/**
 * A TCP server on a loopback port that takes every connection and never answers, as a storage
 * endpoint does when it hangs: requests to it wait until the client's own limits end them.
 */
export async function silentServer(): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let taken = 0;
  const server = createServer((socket) => {
    taken += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => taken,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
