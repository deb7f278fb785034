/**
 * Runs async work one at a time per key (in arrival order) and concurrently across keys. Used to
 * serialise the read-change-write of one end-user's relation, so concurrent turns of that user
 * lose no update while the writes of different users still share storage commits.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after every earlier `run` with the same key has settled. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(work, work);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      // The last waiter removes the key, so the map holds only keys with work in flight.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
