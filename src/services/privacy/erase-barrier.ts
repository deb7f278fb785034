import { AsyncLocalStorage } from "node:async_hooks";
import { AgentMemError } from "../../core/errors.js";
import type { WriteFence } from "../../ports/write-fence.js";

function keyOf(tenant: string, user: string): string {
  return `${tenant}\u0000${user}`;
}

/**
 * Makes Erase a barrier per (tenant, end-user). A write for the end-user that starts while an
 * erasure runs is refused with `UNAVAILABLE` / `ERASE_IN_PROGRESS` (retry once Erase answered).
 * A write that began before the erasure keeps its ticket; when its rows reach a table's commit
 * (the store asks `admits`, inside the table's write queue) after the erasure began, they are
 * dropped (the tombstone), and rows that committed earlier are purged by the erasure itself.
 * So nothing of the end-user lands during or after Erase unless its write began after Erase answered.
 * One process only: replicas sharing a data directory do not see each other's barriers.
 */
export class EraseBarrier implements WriteFence {
  private readonly context = new AsyncLocalStorage<number>();
  private sequence = 0;
  /** Tickets of fenced writes running now. */
  private readonly running = new Set<number>();
  /** (tenant, user) → the ticket sequence when its latest erasure began. */
  private readonly tombstones = new Map<string, number>();
  /** (tenant, user) → erasures queued or running. */
  private readonly erasing = new Map<string, number>();
  /** (tenant, user) → the latest erasure, so erasures of one end-user run one at a time. */
  private readonly chains = new Map<string, Promise<unknown>>();

  /** Runs a write for end-users (tenant, user) under a ticket; refused while any of them is being erased. */
  async write<R>(targets: readonly { tenant: string; user: string }[], work: () => Promise<R>): Promise<R> {
    for (const { tenant, user } of targets) {
      if (user !== "" && this.erasing.has(keyOf(tenant, user))) {
        throw new AgentMemError("UNAVAILABLE", "ERASE_IN_PROGRESS", "an erasure of this end-user is running; retry once it has answered", undefined, { retryable: "true" });
      }
    }
    const ticket = ++this.sequence;
    this.running.add(ticket);
    try {
      return await this.context.run(ticket, work);
    } finally {
      this.running.delete(ticket);
      this.prune();
    }
  }

  /** Runs an erasure of `user`: new writes are refused until it settles, older ones are tombstoned. */
  async erase<R>(tenant: string, user: string, work: () => Promise<R>): Promise<R> {
    const key = keyOf(tenant, user);
    this.erasing.set(key, (this.erasing.get(key) ?? 0) + 1);
    this.tombstones.set(key, ++this.sequence);
    const previous = this.chains.get(key) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(work);
    this.chains.set(key, mine);
    try {
      return await mine;
    } finally {
      const left = (this.erasing.get(key) ?? 1) - 1;
      if (left > 0) this.erasing.set(key, left);
      else this.erasing.delete(key);
      if (this.chains.get(key) === mine) this.chains.delete(key);
      this.prune();
    }
  }

  /** True while an erasure of the end-user is queued or running. */
  isErasing(tenant: string, user: string): boolean {
    return this.erasing.has(keyOf(tenant, user));
  }

  ticket(): number | undefined {
    return this.context.getStore();
  }

  admits(tenant: string, user: string, ticket: number | undefined): boolean {
    if (user === "") return true;
    const key = keyOf(tenant, user);
    if (this.erasing.has(key)) return false;
    const tombstone = this.tombstones.get(key);
    // Unfenced background writes (use marks on existing rows) are only held back during the erasure.
    return tombstone === undefined || ticket === undefined || ticket > tombstone;
  }

  /** Forgets tombstones no running write is older than. */
  private prune(): void {
    if (this.tombstones.size === 0) return;
    let oldest = Infinity;
    for (const t of this.running) oldest = Math.min(oldest, t);
    for (const [key, t] of this.tombstones) if (t < oldest && !this.erasing.has(key)) this.tombstones.delete(key);
  }
}
