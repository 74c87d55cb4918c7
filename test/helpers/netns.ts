import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A peer that is not loopback, on any machine: a network namespace of the test's own, joined to
 * this host by a veth pair with a /30 of its own. A server bound to `hostAddress` sees requests
 * made with `fetchFrom` come from `peerAddress`. Traffic stays between this host and that
 * namespace: the namespace has no other link and no route out.
 *
 * Making one needs root and iproute2's `ip`. Without them `openPeer` answers why; a test skips
 * then, unless REQUIRE_NETNS=1 (CI), where it fails instead (`peerOrSkip`).
 */
export interface NamespacePeer {
  /** This host's end of the pair: bind the server here. */
  hostAddress: string;
  /** The namespace's end: where `fetchFrom` requests come from. */
  peerAddress: string;
  /** A GET made from inside the namespace (Node's fetch, run there). */
  fetchFrom(url: string, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  /** Removes the pair and the namespace; never throws, so it belongs in `afterAll`. */
  close(): Promise<void>;
}

/** The benchmarking range (RFC 2544): never a real network, so a /30 taken here hides nobody. */
const RANGE = '198.18';

/** The IPv4 prefixes this host already routes to (other than the default route). */
async function routedPrefixes(): Promise<Array<{ base: number; bits: number }>> {
  const { stdout } = await run('ip', ['-4', 'route', 'show']);
  return stdout.split('\n').flatMap((line) => {
    const match = /^(\d+\.\d+\.\d+\.\d+)(?:\/(\d+))?\s/.exec(line);
    return match ? [{ base: toNumber(match[1]!), bits: Number(match[2] ?? 32) }] : [];
  });
}

const toNumber = (address: string) => address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const within = (address: number, { base, bits }: { base: number; bits: number }) =>
  bits === 0 || address >>> (32 - bits) === base >>> (32 - bits);

/** A /30 of the range that nothing on this host routes to yet: [host end, namespace end]. */
async function freeSubnet(): Promise<[string, string]> {
  const routed = await routedPrefixes();
  for (let attempt = 0; attempt < 50; attempt++) {
    const network = `${RANGE}.${randomInt(0, 256)}.${randomInt(0, 64) * 4}`;
    const [a, b, c, d] = network.split('.').map(Number) as [number, number, number, number];
    if (routed.some((prefix) => prefix.bits > 0 && within(toNumber(network), prefix))) continue;
    return [`${a}.${b}.${c}.${d + 1}`, `${a}.${b}.${c}.${d + 2}`];
  }
  throw new Error(`no free /30 in ${RANGE}.0.0/15`);
}

/** Runs `ip` with these arguments; rejects with its message. */
const ip = (...args: string[]) => run('ip', args);

/** Opens a namespace peer, or says why it cannot (not root, no `ip`, or `ip` refused). */
export async function openPeer(): Promise<NamespacePeer | { unavailable: string }> {
  if (process.getuid?.() !== 0) return { unavailable: 'not running as root' };
  try {
    await ip('-V');
  } catch {
    return { unavailable: 'no `ip` command (apt-get install -y iproute2)' };
  }
  const id = randomBytes(3).toString('hex');
  const namespace = `workshops-test-${id}`;
  // Interface names are at most 15 characters.
  const hostEnd = `wt${id}h`;
  const peerEnd = `wt${id}n`;
  const close = async () => {
    await ip('link', 'del', hostEnd).catch(() => undefined);
    await ip('netns', 'del', namespace).catch(() => undefined);
  };
  try {
    const [hostAddress, peerAddress] = await freeSubnet();
    await ip('netns', 'add', namespace);
    await ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', peerEnd);
    await ip('link', 'set', peerEnd, 'netns', namespace);
    await ip('addr', 'add', `${hostAddress}/30`, 'dev', hostEnd);
    await ip('link', 'set', hostEnd, 'up');
    await ip('-n', namespace, 'addr', 'add', `${peerAddress}/30`, 'dev', peerEnd);
    await ip('-n', namespace, 'link', 'set', peerEnd, 'up');
    await ip('-n', namespace, 'link', 'set', 'lo', 'up');
    const fetchFrom = async (url: string, headers: Record<string, string> = {}) => {
      const script = `fetch(process.argv[1], { headers: JSON.parse(process.argv[2]), signal: AbortSignal.timeout(5000) })
        .then(async (res) => console.log(JSON.stringify({ status: res.status, body: await res.json() })))`;
      const { stdout } = await ip(
        'netns',
        'exec',
        namespace,
        process.execPath,
        '-e',
        script,
        url,
        JSON.stringify(headers),
      );
      return JSON.parse(stdout) as { status: number; body: unknown };
    };
    return { hostAddress, peerAddress, fetchFrom, close };
  } catch (err) {
    await close();
    return {
      unavailable: `ip refused to make a namespace: ${err instanceof Error ? err.message.trim() : String(err)}`,
    };
  }
}

/**
 * The peer, or the test skipped with the reason printed; under REQUIRE_NETNS=1 (CI) a missing
 * peer fails the test instead.
 */
export function peerOrSkip(
  opened: NamespacePeer | { unavailable: string } | undefined,
  context: { skip: (note?: string) => never },
): NamespacePeer {
  if (opened && !('unavailable' in opened)) return opened;
  const why = opened?.unavailable ?? 'the namespace was not opened';
  if (process.env.REQUIRE_NETNS === '1')
    throw new Error(`REQUIRE_NETNS=1 but no network namespace could be made: ${why}`);
  console.warn(
    `No network namespace (${why}): skipping the test of a peer on another interface. Run as root with iproute2 to run it.`,
  );
  return context.skip(why);
}
