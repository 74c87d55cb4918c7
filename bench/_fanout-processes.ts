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

  constructor(readonly process: ChildProcess, readonly name: string) {
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

function start(entry: string, name: string, options: { env?: NodeJS.ProcessEnv; measured?: boolean; stdout?: boolean } = {}): Child {
  // tsx first, so the memory responder (a .ts file) can be preloaded after it.
  const execArgv = ['--import', 'tsx', ...(options.measured ? ['--expose-gc', '--import', join(here, '_fanout-memory.ts')] : [])];
  const output = options.stdout ? 'pipe' : 'inherit';
  const child = fork(join(here, entry), [], { execArgv, env: { ...process.env, ...options.env }, stdio: ['ignore', output, output, 'ipc'] });
  return new Child(child, name);
}

/** Starts a server entry that prints "listening <port>"; resolves with it and its URL. */
export async function startServer(entry: string, name: string, env: NodeJS.ProcessEnv = {}): Promise<{ child: Child; url: string }> {
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
