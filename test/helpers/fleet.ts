import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listeningPort, serverCommand, startProcess, type ServerProcess } from './processes';
import { startRoundRobinProxy, type RoundRobinProxy } from './proxy';

/*
 * A fleet for tests: several server processes started as production starts them (`src/main.ts`
 * under node, configured by environment only), each with its own working folder and port, all on
 * one database, one Redis and one file store, with one SECRET, behind a round-robin proxy whose
 * address is everyone's PUBLIC_URL. Processes, so that one can be killed with SIGKILL or drained
 * with SIGTERM as a platform would.
 */

export interface FleetInstance {
  name: string;
  index: number;
  port: number;
  /** The instance itself, past the proxy. */
  url: string;
  run: ServerProcess;
  /** Sends `signal` and resolves with the exit code (null after a kill). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

export interface Fleet {
  instances: FleetInstance[];
  proxy: RoundRobinProxy;
  secret: string;
  /** The end of every instance's output, to print when a test failed. */
  logs(): string;
  /** Every instance still running is stopped (SIGKILL: nothing of theirs is kept), the proxy closed, folders removed. */
  stop(): Promise<void>;
}

export interface FleetOptions {
  size: number;
  /** DATABASE_URL, REDIS_URL, FILES_URL and any other setting, the same for every instance. */
  env: Record<string, string>;
}

const NAMES = ['A', 'B', 'C', 'D', 'E'];

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const secret = randomBytes(32).toString('hex');
  // The proxy first: its address is the public one every instance puts in links.
  const proxy = await startRoundRobinProxy([]);
  const folders: string[] = [];
  const start = async (index: number): Promise<FleetInstance> => {
    const folder = mkdtempSync(join(tmpdir(), `workshops-fleet-${NAMES[index]}-`));
    folders.push(folder);
    const run = startProcess(serverCommand(), {
      PORT: '0',
      PUBLIC_URL: proxy.url,
      SECRET: secret,
      DATABASE_PATH: join(folder, 'workshops.db'),
      FILES_DIR: join(folder, 'files'),
      LOG_REQUESTS: '0',
      ...options.env,
    });
    const port = await listeningPort(run).catch((err: Error) => {
      throw new Error(`instance ${NAMES[index]} did not start: ${err.message}\n${run.stderr()}`);
    });
    return {
      name: NAMES[index]!,
      index,
      port,
      url: `http://127.0.0.1:${port}`,
      run,
      async stop(signal) {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill(signal);
        return run.exited;
      },
    };
  };
  // Together, as a deploy starts them: the migrations must be applied once among them.
  const started = await Promise.allSettled(Array.from({ length: options.size }, (_, index) => start(index)));
  const instances = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
    await proxy.close();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stop();
    throw (failed as PromiseRejectedResult).reason;
  }
  proxy.backends.push(...instances.map((instance) => instance.port));
  const logs = () =>
    instances
      .map(
        (instance) =>
          `--- instance ${instance.name} (port ${instance.port})\n${instance.run.stdout().slice(-4_000)}\n${instance.run.stderr().slice(-4_000)}`,
      )
      .join('\n');
  return { instances, proxy, secret, logs, stop };
}
