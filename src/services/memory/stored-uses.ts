import type { MemoryUseRecord } from "../../core/memory-use.js";
import { where } from "../../core/condition.js";
import type { Store } from "../../ports/store.js";

/** Options for the stored-use cache. */
export interface StoredUsesOptions {
  /** At most one version check per tenant in this many ms, to notice another process's writes (default 1,000). */
  checkMs?: number;
}

interface Held {
  byId: Map<string, MemoryUseRecord>;
  /** The table version the map reflects (as far as this process knows). */
  version: number;
  checkedAt: number;
  /** A reload in flight, and the rows this process wrote meanwhile (applied again once it lands). */
  loading: Promise<void> | null;
  sinceLoad: MemoryUseRecord[];
}

/**
 * Each tenant's `memory_use` rows held in memory, so ranking and reads apply recorded uses without
 * a query per request. Loaded on a tenant's first use; this process's own writes are applied as
 * they commit; a version this process did not make (another replica's marks) reloads the table in
 * the background, checked at most once a second. The table holds one small row per memory ever
 * used (~100 bytes of heap each here).
 */
export class StoredUses {
  private readonly tenants = new Map<string, Promise<Held>>();

  constructor(
    private readonly store: Store,
    private readonly options: StoredUsesOptions = {},
  ) {}

  /** The tenant's stored uses by memory id (a reload noticed now serves the next call). */
  async of(tenant: string): Promise<ReadonlyMap<string, MemoryUseRecord>> {
    const held = await this.held(tenant);
    const now = performance.now();
    if (held.loading === null && now - held.checkedAt >= (this.options.checkMs ?? 1_000)) {
      held.checkedAt = now;
      void this.reloadIfChanged(tenant, held).catch(() => undefined);
    }
    return held.byId;
  }

  /** Reads the table again and returns what it holds now (for decisions that must see every process's uses). */
  async fresh(tenant: string): Promise<ReadonlyMap<string, MemoryUseRecord>> {
    const held = await this.held(tenant);
    await this.reload(tenant, held);
    return held.byId;
  }

  /** Applies rows this process just committed (synchronously, so a reader never counts a use twice). */
  apply(tenant: string, rows: readonly MemoryUseRecord[], version?: number): void {
    const held = this.loaded.get(tenant);
    if (!held) return;
    for (const r of rows) held.byId.set(r.id, r);
    if (held.loading) held.sinceLoad.push(...rows);
    if (version !== undefined) held.version = version;
  }

  /** Forgets a tenant's rows after a failed load; the next read tries again. */
  private drop(tenant: string): void {
    this.tenants.delete(tenant);
    this.loaded.delete(tenant);
  }

  private readonly loaded = new Map<string, Held>();

  private held(tenant: string): Promise<Held> {
    let held = this.tenants.get(tenant);
    if (!held) {
      const fresh: Held = { byId: new Map(), version: -1, checkedAt: performance.now(), loading: null, sinceLoad: [] };
      this.loaded.set(tenant, fresh);
      held = this.reload(tenant, fresh).then(() => fresh);
      held.catch(() => this.drop(tenant));
      this.tenants.set(tenant, held);
    }
    return held;
  }

  private async reloadIfChanged(tenant: string, held: Held): Promise<void> {
    const version = await (await this.store.memoryUse(tenant)).version();
    if (version !== held.version) await this.reload(tenant, held);
  }

  private reload(tenant: string, held: Held): Promise<void> {
    held.loading ??= (async () => {
      try {
        const uses = await this.store.memoryUse(tenant);
        const version = await uses.version();
        const rows = await uses.find(where.all());
        const byId = new Map(rows.map((r) => [r.id, r]));
        for (const r of held.sinceLoad) byId.set(r.id, r);
        held.byId = byId;
        held.version = version;
      } finally {
        held.sinceLoad = [];
        held.loading = null;
      }
    })();
    return held.loading;
  }
}
