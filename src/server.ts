import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from './app';
import type { AppDeps } from './deps';

export interface RunningServer {
  /** Actual port (the configured one, or the one the OS chose for port 0). */
  port: number;
  url: string;
  httpServer: Server;
  /** Stops accepting connections, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

/** One node HTTP server carrying the REST app; Socket.IO and the Yjs endpoint attach to it. */
export function createServer(
  deps: AppDeps,
  options: { port?: number; hostname?: string; app?: ReturnType<typeof createApp> } = {},
): Promise<RunningServer> {
  const app = options.app ?? createApp(deps);
  return new Promise((resolve, reject) => {
    const httpServer = serve({ fetch: app.fetch, port: options.port ?? deps.config.port, hostname: options.hostname }) as Server;
    httpServer.once('error', reject);
    httpServer.once('listening', () => {
      const { port } = httpServer.address() as AddressInfo;
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        httpServer,
        close: () =>
          new Promise<void>((done) => {
            httpServer.close(() => done());
            // Idle keep-alive sockets would hold close() open; requests in flight still finish.
            httpServer.closeIdleConnections();
          }),
      });
    });
  });
}
