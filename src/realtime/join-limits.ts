import type { Config } from '../config';
import { budget } from '../config-limits';
import { memoryLimiters, type Limiter, type Limiters } from '../lib/limiters';

type JoinLimitSettings = Pick<
  Config,
  'joinsPerSocketPer10Seconds' | 'joinsPerUserPerMinute' | 'replayedEventsPerUserPerMinute'
>;

/**
 * What `join` may cost. Each replayed event is read and rendered for the socket, so a client
 * replaying in a loop could hold the event loop; joins are limited per socket, and replays per
 * user, and joins per user too (a client opening a new socket for each join). A socket lives on
 * one instance, so its joins are counted there; a user's sockets may be on every instance, so
 * their joins and replays are counted where every limit is (`Limiters`: for the service with
 * Redis or PostgreSQL).
 * The replay budget's default is five full replays (`MAX_REPLAY` each) a minute; past it a resume
 * answers `reload: true`, which costs the server nothing.
 */
export class JoinLimits {
  private readonly socketJoins: Limiter;
  private readonly userJoins: Limiter;
  private readonly replays: Limiter;

  constructor({ config, attempts }: { config: JoinLimitSettings; attempts: Pick<Limiters, 'limiter'> }) {
    this.socketJoins = memoryLimiters().limiter({
      name: 'socket-joins',
      ...budget(config, 'joinsPerSocketPer10Seconds'),
    });
    this.userJoins = attempts.limiter({ name: 'user-joins', ...budget(config, 'joinsPerUserPerMinute') });
    this.replays = attempts.limiter({ name: 'replays', ...budget(config, 'replayedEventsPerUserPerMinute') });
  }

  /** Null when the socket (and its user) may join now; otherwise the seconds to wait. */
  async joinAllowed(socketId: string, userId: string): Promise<number | null> {
    // A join the socket's own budget refuses spends nothing of the user's.
    return (await this.socketJoins.take(socketId)) ?? (await this.userJoins.take(userId));
  }

  /** Whether the user may have `events` more events replayed now (taken from their budget if so). */
  async replayAllowed(userId: string, events: number): Promise<boolean> {
    if (events === 0) return true;
    return (await this.replays.take(userId, events)) === null;
  }
}
