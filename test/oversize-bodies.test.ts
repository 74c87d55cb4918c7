import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useServer, useUsers } from './helpers/cast';
import { inTurn } from './helpers/factories';

/*
 * A body over the limit (docs/operations.md#a-body-over-the-limit): the client reads its 413 every
 * time, even while it is still sending, and a client that never stops sending is closed anyway.
 *
 * Among the slowest files (about 15 s): the bodies are big on purpose (over 1 MiB of JSON, over
 * 20 MiB of upload, sent by several clients at once, and in chunks), and a client that keeps
 * sending after its 413 is closed "a few seconds" after it: the test waits those seconds.
 */

const t = useServer();
const [ada] = useUsers(t, 'Ada');

const MiB = 1024 * 1024;

interface Outcome {
  status?: number;
  body?: unknown;
  error?: string;
}

/** Sends `make()` with Node's own fetch (undici), as a hand-written client would; a socket error is an outcome too. */
async function send(path: string, make: () => { body: BodyInit; headers?: Record<string, string> }): Promise<Outcome> {
  const { body, headers } = make();
  try {
    const res = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ada.token}`, ...headers },
      body,
      duplex: 'half',
    } as RequestInit);
    return { status: res.status, body: await res.json() };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { error: `${(err as Error).message}: ${cause?.code ?? cause?.message ?? ''}` };
  }
}

/**
 * Keeps this process's event loop busy in bursts, as a loaded server's is: what arrives on a
 * socket meanwhile (an answer, a reset) is seen all at once afterwards.
 */
function underLoad(): () => void {
  const load = setInterval(() => {
    const until = Date.now() + 15;
    while (Date.now() < until);
  }, 5);
  return () => clearInterval(load);
}

/** `tries` sends, `atOnce` at a time, under load; every one must have read its 413. */
async function expectEveryoneReads413(tries: number, atOnce: number, sendOne: () => Promise<Outcome>) {
  const stop = underLoad();
  const outcomes = await inTurn(tries / atOnce, () => Promise.all(Array.from({ length: atOnce }, sendOne))).finally(
    stop,
  );
  const wrong = outcomes
    .flat()
    .filter(
      (o) =>
        o.status !== 413 ||
        (o.body as { error?: { code?: string; message?: string } }).error?.code !== 'payload_too_large',
    );
  expect(wrong, `${wrong.length} of ${tries} did not read their 413`).toEqual([]);
  expect(outcomes.flat()).toHaveLength(tries);
}

/** A JSON body of about `size` bytes, made 16 KiB at a time as a client streaming it would, a little apart. */
function pacedJson(size: number): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
  let sent = 0;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"title":"'));
    },
    async pull(controller) {
      await new Promise((done) => setTimeout(done, 1));
      if (sent >= size) {
        controller.enqueue(new TextEncoder().encode('"}'));
        return controller.close();
      }
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

/**
 * A raw connection, for what fetch will not do: keep sending after the server has ended its side
 * (`allowHalfOpen`), and see when the server closes.
 */
function rawConnection(): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(new URL(t.url).port), host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    const opened = Date.now();
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - opened)));
    socket.once('connect', () => resolve({ socket, received: () => text, closed }));
    socket.once('error', reject);
  });
}

/** Writes `chunk` again and again, every `everyMs` (0: as fast as the socket takes it), until the socket closes. */
function keepSending(socket: Socket, chunk: Buffer, everyMs: number): void {
  const next = () => {
    if (socket.destroyed || !socket.writable) return;
    const more = socket.write(chunk);
    if (everyMs > 0) setTimeout(next, everyMs);
    else if (more) setImmediate(next);
    else socket.once('drain', next);
  };
  next();
}

describe('a JSON body over 1 MiB', () => {
  it('is answered 413 payload_too_large to every client, none of them seeing its connection reset', async () => {
    const json = JSON.stringify({ title: 'x'.repeat(2 * MiB) });
    await expectEveryoneReads413(100, 10, () =>
      send('/v1/workshops', () => ({ body: json, headers: { 'content-type': 'application/json' } })),
    );
  });

  it('is answered 413 to a client sending it in chunks as it makes them, without a length', async () => {
    await expectEveryoneReads413(30, 10, () =>
      send('/v1/workshops', () => ({ body: pacedJson(2 * MiB), headers: { 'content-type': 'application/json' } })),
    );
  });
});

describe('an upload over 20 MiB', () => {
  it('is answered 413 payload_too_large to every client, none of them seeing its connection reset', async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(21 * MiB)]), 'big.bin');
    const body = new Response(form);
    const bytes = new Uint8Array(await body.arrayBuffer());
    const type = body.headers.get('content-type')!;
    await expectEveryoneReads413(20, 5, () =>
      send('/v1/uploads', () => ({ body: bytes, headers: { 'content-type': type } })),
    );
  });
});

describe('a client that keeps sending after its 413', () => {
  const head = (length: number) =>
    `POST /v1/workshops HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ada.token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('is closed a few seconds after its 413, however slowly it keeps sending', async () => {
    const { socket, received, closed } = await rawConnection();
    socket.write(head(1024 * MiB));
    keepSending(socket, Buffer.alloc(1024, 0x20), 50);
    const after = await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(received()).toContain('"code":"payload_too_large"');
    expect(after).toBeGreaterThan(1_000);
    expect(after).toBeLessThan(8_000);
  });

  it('reads its 413 though it sends as fast as it can, and is closed once it has sent a few MiB more', async () => {
    const { socket, received, closed } = await rawConnection();
    socket.write(head(1024 * MiB));
    keepSending(socket, Buffer.alloc(256 * 1024, 0x20), 0);
    const after = await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(after).toBeLessThan(1_500);
  });
});
