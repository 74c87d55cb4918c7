import { Mutex } from 'async-mutex';

/**
 * One async lock per key (a workshop's document, say), made when first asked for and dropped once
 * nobody holds or waits for it. Holders are served in the order they asked.
 */
export class KeyedLock {
  private readonly locks = new Map<string, { mutex: Mutex; users: number }>();

  /** Waits for the key's lock; the function returned releases it (once). */
  async acquire(key: string): Promise<() => void> {
    let lock = this.locks.get(key);
    if (!lock) this.locks.set(key, (lock = { mutex: new Mutex(), users: 0 }));
    lock.users += 1;
    let release: () => void;
    try {
      release = await lock.mutex.acquire();
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

  /** Runs `fn` holding the key's lock. */
  async run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const release = await this.acquire(key);
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
