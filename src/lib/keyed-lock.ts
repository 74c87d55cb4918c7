import { Mutex, withTimeout } from 'async-mutex';

/** A lock not had within the wait its caller allowed (`KeyedLock.acquire`). */
export class LockTimeout extends Error {
  constructor(
    readonly key: string,
    readonly waitedMs: number,
  ) {
    super(`Waited more than ${waitedMs} ms for the lock of ${key}.`);
    this.name = 'LockTimeout';
  }
}

/**
 * One async lock per key (a workshop's document, say), made when first asked for and dropped once
 * nobody holds or waits for it. Holders are served in the order they asked.
 */
export class KeyedLock {
  private readonly locks = new Map<string, { mutex: Mutex; users: number }>();

  /**
   * Waits for the key's lock; the function returned releases it (once). With `waitMs`, a wait
   * longer than that throws `LockTimeout` instead, and the turn it was waiting for is passed on
   * as soon as it comes.
   */
  async acquire(key: string, waitMs?: number): Promise<() => void> {
    let lock = this.locks.get(key);
    if (!lock) this.locks.set(key, (lock = { mutex: new Mutex(), users: 0 }));
    lock.users += 1;
    let release: () => void;
    try {
      // A free lock is taken without arming a timer: the common case costs nothing more.
      release =
        waitMs === undefined || !lock.mutex.isLocked()
          ? await lock.mutex.acquire()
          : await withTimeout(lock.mutex, waitMs, new LockTimeout(key, waitMs)).acquire();
    } catch (err) {
      this.left(key, lock);
      throw err;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
      this.left(key, lock);
    };
  }

  /** How many hold or wait for the key's lock now. */
  queue(key: string): number {
    return this.locks.get(key)?.users ?? 0;
  }

  /** Runs `fn` holding the key's lock (waiting at most `waitMs` for it, when given). */
  async run<T>(key: string, fn: () => Promise<T> | T, waitMs?: number): Promise<T> {
    const release = await this.acquire(key, waitMs);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private left(key: string, lock: { mutex: Mutex; users: number }) {
    lock.users -= 1;
    if (lock.users === 0 && this.locks.get(key) === lock) this.locks.delete(key);
  }
}
