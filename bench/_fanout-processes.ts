import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { announcedPort } from './_server';

const here = dirname(fileURLToPath(import.meta.url));

export interface Memory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
}

/** A child process driven over IPC. */
export class Child {
  private readonly waiting: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
  readonly exited: Promise<number | null>;

  constructor(
    readonly process: ChildProcess,
    readonly name: string,
  ) {
    process.on('message', (message: any) => {
      const index = this.waiting.findIndex((w) => w.match(message));
      if (index >= 0) this.waiting.splice(index, 1)[0]!.resolve(message);
      else this.unclaimed.push(message);
    });
    this.exited = new Promise((resolve) => process.once('exit', (code) => resolve(code)));
  }

  private readonly unclaimed: any[] = [];

  /** The next message (already received or later) that matches. */
  next<T = any>(match: (message: any) => boolean): Promise<T> {
    const index = this.unclaimed.findIndex(match);
    if (index >= 0) return Promise.resolve(this.unclaimed.splice(index, 1)[0]);
    return new Promise((resolve) => this.waiting.push({ match, resolve }));
  }

  send(message: unknown) {
    this.process.send(message as never);
  }

  async memory(): Promise<Memory> {
    this.send({ type: 'memory' });
    return this.next((m) => m.type === 'memory');
  }

  async stop() {
    if (this.process.exitCode !== null) return;
    this.process.kill('SIGTERM');
    await this.exited;
  }
}

function start(
  entry: string,
  name: string,
  options: { env?: NodeJS.ProcessEnv; measured?: boolean; stdout?: boolean } = {},
): Child {
  // tsx first, so the memory responder (a .ts file) can be preloaded after it.
  const execArgv = [
    '--import',
    'tsx',
    ...(options.measured ? ['--expose-gc', '--import', join(here, '_fanout-memory.ts')] : []),
  ];
  const output = options.stdout ? 'pipe' : 'inherit';
  const child = fork(join(here, entry), [], {
    execArgv,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', output, output, 'ipc'],
  });
  return new Child(child, name);
}

/** Starts a server entry that prints "listening <port>"; resolves with it and its URL. */
export async function startServer(
  entry: string,
  name: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: Child; url: string }> {
  const child = start(entry, name, { env, measured: true, stdout: true });
  // The app's server says where it listens on stderr (its stdout is the request log), the bare one on stdout.
  const port = await announcedPort(child.process, name);
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Starts the processes that hold the clients. */
export async function startClientProcesses(count: number): Promise<Child[]> {
  const children = Array.from({ length: count }, (_, i) => start('_fanout-clients.ts', `clients-${i}`));
  await Promise.all(children.map((c) => c.next((m) => m.type === 'ready')));
  return children;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Connects clients of `group` to one server, split over the client processes, then waits
 * `settleMs` for presence to settle. A group may grow over several calls (several servers, one
 * after another); a broadcast round counts once every client of the group has it.
 */
export async function connectClients(
  clients: Child[],
  group: string,
  url: string,
  workshopId: string,
  tokens: string[],
  settleMs: number,
) {
  const share = Math.ceil(tokens.length / clients.length);
  const done = clients.map((child, i) => {
    child.send({
      type: 'connect',
      group,
      url,
      workshopId,
      tokens: tokens.slice(i * share, (i + 1) * share),
      concurrency: 25,
    });
    return child.next((m) => (m.type === 'connected' || m.type === 'failed') && m.group === group);
  });
  for (const result of await Promise.all(done))
    if (result.type === 'failed') throw new Error(`${group} clients: ${result.error}`);
  await new Promise((resolve) => setTimeout(resolve, settleMs));
}

/** One broadcast: milliseconds from sending the trigger until the last client of every process got it. */
export async function broadcastRound(
  clients: Child[],
  group: string,
  index: number,
  trigger: () => Promise<unknown>,
): Promise<number> {
  const reports = clients.map((child) =>
    child.next<{ at: string }>((m) => m.type === 'round' && m.group === group && m.round === index),
  );
  const sent = process.hrtime.bigint();
  await trigger();
  const last = (await Promise.all(reports)).reduce((max, r) => (BigInt(r.at) > max ? BigInt(r.at) : max), 0n);
  return Number(last - sent) / 1e6;
}
