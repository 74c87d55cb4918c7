import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';

/**
 * A real redis-server for tests, on a loopback port it binds itself, without persistence. On a machine without
 * redis-server the Redis tests are skipped with a message, unless REQUIRE_REDIS=1 (CI), where a
 * missing binary fails the run instead.
 */
export const redisAvailable = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

if (!redisAvailable) {
  if (process.env.REQUIRE_REDIS === '1') {
    throw new Error('REQUIRE_REDIS=1 but redis-server is not installed (apt-get install -y redis-server)');
  }
  console.warn(
    'redis-server not found: skipping the Redis tests. Install it with `apt-get install -y redis-server` to run them.',
  );
}

export interface TestRedis {
  port: number;
  url: string;
  /** Stops the server (as a crash would, without saving); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** How many connections are subscribed to `channel` (`PUBSUB NUMSUB`), to wait for a subscription. */
  subscribers(channel: string): Promise<number>;
}

/** Why a start failed: the port was taken (try another) or anything else (give up). */
class PortTaken extends Error {}

/** Spawns redis-server on `port` and resolves once it accepts connections. */
function spawnRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise<ChildProcess>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => {
      const message = `redis-server on port ${port} exited with ${code}: ${out}`;
      reject(out.includes('Address already in use') ? new PortTaken(message) : new Error(message));
    });
  });
}

/*
 * No "find a free port, then start on it": another process could take the port in between.
 * redis-server itself binds the port, and a start that finds it taken is retried elsewhere.
 * Ports are drawn below Linux's ephemeral range (32768+), where outgoing connections get theirs.
 */
const PORT_TRIES = 10;
const randomPort = () => 20_000 + Math.floor(Math.random() * 12_000);

export async function startRedis(): Promise<TestRedis> {
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !child; attempt++) {
    port = randomPort();
    try {
      child = await spawnRedis(port);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= PORT_TRIES) throw err;
    }
  }

  /** Back on the same port, as after a crash; a few tries, should the old socket linger a moment. */
  async function start() {
    for (let attempt = 1; ; attempt++) {
      try {
        child = await spawnRedis(port);
        return;
      } catch (err) {
        if (!(err instanceof PortTaken) || attempt >= 5) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async function stop() {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  const url = `redis://127.0.0.1:${port}`;
  async function subscribers(channel: string) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await client.connect();
      const [, count] = (await client.pubsub('NUMSUB', channel)) as [string, number];
      return Number(count);
    } finally {
      client.disconnect();
    }
  }

  return { port, url, stop, start, subscribers };
}
