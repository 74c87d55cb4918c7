import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Joins one socket may make in `JOIN_WINDOW_S` seconds (a reconnect, a few workshops, a role change). */
const JOINS_PER_SOCKET = 10;
const JOIN_WINDOW_S = 10;
/** Joins one user may make per minute, whatever their sockets: a new socket per join gains nothing. */
const JOINS_PER_USER = 60;
/**
 * Events one user may have replayed per minute, whatever their sockets: five full replays
 * (`MAX_REPLAY` each). Past it a resume answers `reload: true`, which costs the server nothing.
 */
const REPLAYED_EVENTS_PER_USER = 2_500;

/**
 * What `join` may cost. Each replayed event is read and rendered for the socket, so a client
 * replaying in a loop could hold the event loop; joins are limited per socket, and replays per
 * user, and joins per user too (a client opening a new socket for each join). The counters are
 * this instance's: a socket stays on one instance.
 */
export class JoinLimits {
  private readonly joins = new RateLimiterMemory({ keyPrefix: 'joins', points: JOINS_PER_SOCKET, duration: JOIN_WINDOW_S });
  private readonly userJoins = new RateLimiterMemory({ keyPrefix: 'user-joins', points: JOINS_PER_USER, duration: 60 });
  private readonly replays = new RateLimiterMemory({ keyPrefix: 'replays', points: REPLAYED_EVENTS_PER_USER, duration: 60 });

  /** Null when the socket (and its user) may join now; otherwise the seconds to wait. */
  async joinAllowed(socketId: string, userId: string): Promise<number | null> {
    try {
      await this.joins.consume(socketId);
      await this.userJoins.consume(userId);
      return null;
    } catch (refused) {
      return secondsUntil(refused);
    }
  }

  /** Whether the user may have `events` more events replayed now (taken from their budget if so). */
  async replayAllowed(userId: string, events: number): Promise<boolean> {
    if (events === 0) return true;
    try {
      await this.replays.consume(userId, events);
      return true;
    } catch (refused) {
      if (refused instanceof RateLimiterRes) return false;
      throw refused;
    }
  }
}

function secondsUntil(refused: unknown): number {
  if (refused instanceof RateLimiterRes) return Math.max(1, Math.ceil(refused.msBeforeNext / 1000));
  throw refused;
}
