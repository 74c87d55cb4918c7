import { randomBytes } from 'node:crypto';
import { connectRedisPair, type RedisPair } from '../lib/redis-pair';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';

/** What instances tell each other about a workshop's document. */
export type FanoutKind = 'update' | 'awareness' | 'resync' | 'forget';
const KINDS: readonly FanoutKind[] = ['update', 'awareness', 'resync', 'forget'];

export interface FanoutHandlers {
  /** Another instance persisted this update, or relayed this awareness update, or asks for a resync / forget. */
  receive(workshopId: string, kind: FanoutKind, payload: Uint8Array): void;
  /** Redis is back after an outage: messages may have been missed in both directions. */
  recovered(): void;
}

const channelOf = (workshopId: string) => `collab:${workshopId}`;

/**
 * Yjs fan-out between instances over Redis pub/sub: one channel per loaded workshop document,
 * every message tagged with this instance's random id so it can drop its own echoes. Redis going
 * away does not stop local clients: publishing fails fast (no offline queue, nothing stale is sent
 * later), the outage is logged once, ioredis keeps reconnecting, and `recovered` lets the engine
 * re-read what it may have missed from SQLite.
 */
export class RedisFanout {
  readonly instanceId = randomBytes(12).toString('base64url');
  private readonly redis: RedisPair;
  private readonly channels = new Set<string>();
  private closed = false;
  /** Messages published before the first connection was ready (sent once it is). */
  private beforeFirstConnect: Array<[string, Buffer]> | null = [];

  constructor(
    url: string,
    private readonly handlers: FanoutHandlers,
  ) {
    this.redis = connectRedisPair(url, {
      label: 'collab',
      onReady: () => this.flushFirstMessages(),
      onRecovered: () => this.recover(),
    });
    for (const connection of [this.redis.pub, this.redis.sub]) {
      // Whatever waited for the first connection is covered by the re-read that follows recovery.
      connection.on('close', () => (this.beforeFirstConnect = null));
    }
    this.redis.sub.on('messageBuffer', (channel: Buffer, message: Buffer) =>
      this.onMessage(channel.toString(), message),
    );
  }

  /** Whether both connections are up (closed ones are not). */
  healthy(): boolean {
    return this.redis.healthy();
  }

  /** Resolves once Redis confirmed the subscription: from then on nothing published is missed. */
  subscribe(workshopId: string): Promise<void> {
    const channel = channelOf(workshopId);
    this.channels.add(channel);
    return this.redis.sub.subscribe(channel).then(
      () => undefined,
      (err: Error) => {
        this.fault(err);
        throw err;
      },
    );
  }

  unsubscribe(workshopId: string): void {
    const channel = channelOf(workshopId);
    if (!this.channels.delete(channel)) return;
    this.redis.sub.unsubscribe(channel).catch(() => {});
  }

  publish(workshopId: string, kind: FanoutKind, payload: Uint8Array = new Uint8Array()): void {
    if (this.closed) return;
    const encoder = encoding.createEncoder();
    encoding.writeVarString(encoder, this.instanceId);
    encoding.writeVarUint(encoder, KINDS.indexOf(kind));
    encoding.writeVarUint8Array(encoder, payload);
    const message = Buffer.from(encoding.toUint8Array(encoder));
    if (this.beforeFirstConnect && this.redis.pub.status !== 'ready') {
      this.beforeFirstConnect.push([channelOf(workshopId), message]);
      return;
    }
    this.send(channelOf(workshopId), message);
  }

  private send(channel: string, message: Buffer) {
    this.redis.pub.publish(channel, message).catch((err: Error) => this.fault(err));
  }

  private onMessage(channel: string, message: Buffer): void {
    if (!channel.startsWith('collab:')) return;
    try {
      const decoder = decoding.createDecoder(message);
      if (decoding.readVarString(decoder) === this.instanceId) return;
      const kind = KINDS[decoding.readVarUint(decoder)];
      if (!kind) return;
      this.handlers.receive(channel.slice('collab:'.length), kind, decoding.readVarUint8Array(decoder));
    } catch (err) {
      console.error('[collab] dropped a malformed Redis message', err);
    }
  }

  private fault(err?: Error): void {
    this.redis.fault(err?.message ?? 'connection closed');
  }

  private flushFirstMessages(): void {
    if (!this.beforeFirstConnect || this.redis.pub.status !== 'ready') return;
    for (const [channel, message] of this.beforeFirstConnect) this.send(channel, message);
    this.beforeFirstConnect = null;
  }

  /**
   * ioredis re-subscribes on reconnect; subscribing again and waiting for the answer makes sure
   * nothing published from now on is missed before the engine re-reads SQLite.
   */
  private recover(): void {
    if (this.closed) return;
    const channels = [...this.channels];
    const resubscribed = channels.length > 0 ? this.redis.sub.subscribe(...channels) : Promise.resolve();
    resubscribed.then(
      () => this.handlers.recovered(),
      (err: Error) => this.fault(err),
    );
  }

  close(): void {
    this.closed = true;
    this.redis.disconnect();
  }
}
