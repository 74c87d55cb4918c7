import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * A real redis-server for tests, on a free loopback port, without persistence. On a machine without
 * redis-server the Redis tests are skipped with a message, unless REQUIRE_REDIS=1 (CI), where a
 * missing binary fails the run instead.
 */
export const redisAvailable = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

if (!redisAvailable) {
  if (process.env.REQUIRE_REDIS === '1') {
    throw new Error('REQUIRE_REDIS=1 but redis-server is not installed (apt-get install -y redis-server)');
  }
  console.warn('redis-server not found: skipping the Redis tests. Install it with `apt-get install -y redis-server` to run them.');
}

export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (as a crash would, without saving); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  async function start() {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      child!.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)));
    });
  }

  async function stop() {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}
