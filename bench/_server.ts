import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchServer {
  url: string;
  process: ChildProcess;
  api(method: string, path: string, token?: string, body?: unknown): Promise<any>;
  signup(name: string): Promise<{ token: string; id: string }>;
  stop(): Promise<void>;
}

/** Ends a bench that runs past `minutes` (a hung client or server) with a failure, rather than never. */
export function stopAfter(name: string, minutes: number): void {
  setTimeout(() => {
    console.error(`${name} bench took longer than ${minutes} minutes; stopping`);
    process.exit(1);
  }, minutes * 60_000).unref();
}

/** One JSON call to a bench server; throws on any non-2xx answer, since seeding must not half-succeed. */
export async function callApi(
  baseUrl: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<any> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * The port a server child announces with a `listening <port>` line, on whichever of its piped
 * stdout and stderr it uses. Once announced, its stderr goes on to ours and its stdout is drained.
 */
export function announcedPort(child: ChildProcess, name: string): Promise<number> {
  const streams = [child.stdout, child.stderr].filter((stream) => stream !== null);
  return new Promise<number>((resolve, reject) => {
    let out = '';
    const listen = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\d+)/.exec(out);
      if (!match) return;
      for (const stream of streams) stream.off('data', listen);
      child.stdout?.resume();
      child.stderr?.pipe(process.stderr);
      resolve(Number(match[1]));
    };
    for (const stream of streams) stream.on('data', listen);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}: ${out}`)));
  });
}

export interface BenchServerOptions {
  /** The server script to run: this checkout's bench/server.ts unless told (a baseline's, say). */
  entry?: string;
  /** Run on PostgreSQL, in this (fresh) database; a fresh SQLite file otherwise. */
  databaseUrl?: string;
  /** More environment for the server (the webhook bench's `BENCH_SENDS_WEBHOOKS`). */
  env?: Record<string, string>;
}

/** Starts bench/server.ts in a child process over a fresh database and waits until it listens. */
export async function startBenchServer(options: BenchServerOptions = {}): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'workshops-bench-'));
  const entry = options.entry ?? join(dirname(fileURLToPath(import.meta.url)), 'server.ts');
  // BENCH_SERVER_ARGS passes node flags to the measured server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const extraArgs = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
  // The request log goes to a file, as in production; the server says where it listens on stderr.
  const log = openSync(join(dir, 'requests.log'), 'a');
  const child = spawn(process.execPath, [...extraArgs, '--import', 'tsx', entry], {
    // Production's settings: NODE_ENV=production as in the Docker image.
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_PATH: join(dir, 'bench.db'),
      FILES_DIR: join(dir, 'files'),
      DATABASE_URL: options.databaseUrl ?? '',
      ...options.env,
    },
    stdio: ['ignore', log, 'pipe'],
  });
  closeSync(log);
  const port = await announcedPort(child, 'bench server');
  const url = `http://127.0.0.1:${port}`;
  let counter = 0;

  const api = (method: string, path: string, token?: string, body?: unknown) => callApi(url, method, path, token, body);

  return {
    url,
    process: child,
    api,
    async signup(name) {
      const res = await api('POST', '/v1/auth/signup', undefined, {
        email: `bench-${counter++}-${Date.now()}@example.test`,
        password: 'bench password',
        name,
      });
      return { token: res.token, id: res.user.id };
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
