import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from './app';
import type { AppDeps } from './deps';
import { attachRealtime, type Realtime } from './realtime/index';

export interface RunningServer {
  /** Actual port (the configured one, or the one the OS chose for port 0). */
  port: number;
  url: string;
  httpServer: Server;
  /** Socket.IO on the same port. */
  realtime: Realtime;
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
    const realtime = attachRealtime(deps, httpServer);
    httpServer.on('upgrade', (request, socket, head) => deps.collab.handleUpgrade(request, socket, head));
    httpServer.once('error', reject);
    httpServer.once('listening', async () => {
      const { port } = httpServer.address() as AddressInfo;
      await realtime.ready;
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        httpServer,
        realtime,
        close: async () => {
          await realtime.close();
          // Open sync sockets would hold httpServer.close() open; documents are compacted on the way out.
          await deps.collab.close();
          await new Promise<void>((done) => {
            httpServer.close(() => done());
            // Idle keep-alive sockets would hold close() open; requests in flight still finish.
            httpServer.closeIdleConnections();
          });
        },
      });
    });
  });
}
