import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Connection, Table } from "@lancedb/lancedb";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** Where the storage gauges read from: the server's open LanceDB connection. */
export interface MetricsStore {
  connect(): Promise<Connection>;
  /** Hot-row cache counters (monotonic except `bytes` and `partitions`), if the store has the cache. */
  readonly cacheCounters?: Readonly<Record<string, number>>;
}

/** Options for {@link createMetrics}. */
export interface MetricsOptions {
  /** Source of the row and fragment gauges (read at scrape time). Default: no storage gauges. */
  store?: MetricsStore;
  /** Source of the stuck-commit gauges. Default: none. */
  watchdog?: { oldestSeconds(): number; readonly stalls: number };
  /** Source of the maintenance outcome counters (optimize completed / preempted / given up). Default: none. */
  maintenance?: { readonly counters: Readonly<MaintenanceOutcomes> };
  /** Also export the Node process metrics (CPU, memory, event loop). Default true. */
  processMetrics?: boolean;
  /** Milliseconds a scan of every table's stats is reused by later scrapes (default 15 000; 0 = every scrape). */
  storageStatsMaxAgeMs?: number;
}

/** What the maintenance counters must hold for `/metrics` (see `MaintenanceCounters`). */
export interface MaintenanceOutcomes {
  optimizations: number;
  conflicts: number;
  retries: number;
  giveUps: number;
  wastedMillis: number;
  folds: number;
  rowsRewritten: number;
  bytesRewritten: number;
  sessionRenewals: number;
  tidyFolds: number;
}

/** Prometheus metrics of one server: its own registry, so several servers can share a process. */
export interface Metrics {
  readonly registry: Registry;
  /** Counts every RPC by method and final code and times it; put it first in the chain. */
  readonly interceptor: Interceptor;
  /** Counts model tokens billed (`embedding`, `chat_prompt`, `chat_completion`). */
  readonly modelTokens: Counter<"kind">;
  /** Counts background maintenance runs by task and outcome (`ok` / `error`). */
  readonly maintenanceRuns: Counter<"task" | "outcome">;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Buckets from 1 ms to 10 s: recall sits at the low end, Process with a model at the high end. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Creates the registry, the RPC interceptor and the storage gauges. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: "agentmem_" });
  const requests = new Counter({
    name: "agentmem_rpc_requests_total",
    help: "RPCs handled, by method (Service/Method) and final code",
    labelNames: ["method", "code"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "agentmem_rpc_duration_seconds",
    help: "RPC latency in seconds, by method",
    labelNames: ["method"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const modelTokens = new Counter({
    name: "agentmem_model_tokens_total",
    help: "Model tokens billed by kind (embedding, chat_prompt, chat_completion)",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const maintenanceRuns = new Counter({
    name: "agentmem_maintenance_runs_total",
    help: "Background maintenance runs by task and outcome",
    labelNames: ["task", "outcome"] as const,
    registers: [registry],
  });
  if (options.store) registerStorageGauges(registry, options.store, options.storageStatsMaxAgeMs ?? 15_000);
  if (options.store?.cacheCounters) registerCacheGauges(registry, options.store);
  if (options.watchdog) registerWatchdogGauges(registry, options.watchdog);
  if (options.maintenance) registerMaintenanceCounters(registry, options.maintenance);

  const interceptor: Interceptor = (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const stop = latency.startTimer({ method });
    let code = "ok";
    try {
      return await next(req);
    } catch (error) {
      code = Code[ConnectError.from(error).code].replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
      throw error;
    } finally {
      stop();
      requests.inc({ method, code });
    }
  };

  return {
    registry,
    interceptor,
    modelTokens,
    maintenanceRuns,
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** Maintenance outcomes, read from the maintainer's monotonic counters at scrape time. */
function registerMaintenanceCounters(registry: Registry, source: NonNullable<MetricsOptions["maintenance"]>): void {
  const counter = (name: string, help: string, read: (c: Readonly<MaintenanceOutcomes>) => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read(source.counters));
      },
    });
  counter("agentmem_maintenance_optimizations_total", "optimize runs (compaction, index refresh, version cleanup) completed", (c) => c.optimizations);
  counter("agentmem_maintenance_conflicts_total", "maintenance attempts preempted by a concurrent commit and thrown away", (c) => c.conflicts);
  counter("agentmem_maintenance_retries_total", "maintenance tasks run a second time with the table's writes held, after a conflict", (c) => c.retries);
  counter("agentmem_maintenance_give_ups_total", "maintenance tasks given up after their second attempt conflicted too", (c) => c.giveUps);
  counter("agentmem_maintenance_wasted_rewrite_seconds_total", "seconds of maintenance work thrown away by conflicts", (c) => c.wastedMillis / 1000);
  counter("agentmem_maintenance_folds_total", "bounded compactions: the rows written since the last full compaction moved into one fragment", (c) => c.folds);
  counter("agentmem_maintenance_rewritten_rows_total", "rows rewritten by compaction (folds and full rewrites)", (c) => c.rowsRewritten);
  counter("agentmem_maintenance_tidy_folds_total", "tidy folds: the fragments written since a table's last optimize moved into one, without an optimize", (c) => c.tidyFolds);
  counter("agentmem_maintenance_session_renewals_total", "LanceDB sessions renewed after maintenance work (every table reopened with empty engine caches)", (c) => c.sessionRenewals);
  counter("agentmem_maintenance_rewritten_bytes_total", "bytes rewritten by compaction (folds and full rewrites), estimated from each table's bytes per row", (c) => c.bytesRewritten);
}

/** How long the oldest engine commit in flight has run, and how often one got stuck. */
function registerWatchdogGauges(registry: Registry, watchdog: NonNullable<MetricsOptions["watchdog"]>): void {
  new Gauge({
    name: "agentmem_store_oldest_commit_seconds",
    help: "Seconds the oldest engine commit in flight has been running (0 when none is)",
    registers: [registry],
    collect() {
      this.set(watchdog.oldestSeconds());
    },
  });
  new Gauge({
    name: "agentmem_store_commit_stalls",
    help: "Engine commits that ran past AGENTMEM_WRITE_STALL_SECONDS (monotonic)",
    registers: [registry],
    collect() {
      this.set(watchdog.stalls);
    },
  });
}

/** The hot-row cache: hits, loads, evictions, invalidations, engine bypasses, cold reads and background loads, bytes and partitions held. */
function registerCacheGauges(registry: Registry, store: MetricsStore): void {
  const gauge = new Gauge({
    name: "agentmem_hot_rows",
    help: "Hot-row cache counters by name (hits, loads, fresh, load_millis, evictions, invalidations, bypasses, cold_reads, warms, warms_skipped, bytes, partitions)",
    labelNames: ["counter"] as const,
    registers: [registry],
    collect() {
      for (const [name, value] of Object.entries(store.cacheCounters ?? {})) {
        gauge.set({ counter: name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) }, value);
      }
    },
  });
}

/**
 * Rows and fragments per table kind, summed over tenants (no tenant label: `/metrics` is public
 * and must not list customers; per-tenant figures are in the `Usage` RPC).
 */
function registerStorageGauges(registry: Registry, store: MetricsStore, maxAgeMs: number): void {
  const tables = new Map<string, Table>();
  // prom-client awaits each gauge's collect on scrape; the first starts one scan, the others share it.
  const collectOnce = (): Promise<void> => once();
  const rows = new Gauge({
    name: "agentmem_store_rows",
    help: "Rows stored, by table kind",
    labelNames: ["table"] as const,
    registers: [registry],
    collect: collectOnce,
  });
  const fragments = new Gauge({
    name: "agentmem_store_fragments",
    help: "Data fragments, by table kind (compaction folds small ones)",
    labelNames: ["table"] as const,
    registers: [registry],
    collect: collectOnce,
  });
  const small = new Gauge({
    name: "agentmem_store_small_fragments",
    help: "Uncompacted small fragments, by table kind",
    labelNames: ["table"] as const,
    registers: [registry],
    collect: collectOnce,
  });
  const tenants = new Gauge({ name: "agentmem_store_tenants", help: "Tenants with stored tables", registers: [registry], collect: collectOnce });

  let pending: Promise<void> | null = null;
  // A scan opens every tenant's tables: scrapes within `maxAgeMs` reuse the last one.
  let scannedAt = -Infinity;
  const collect = async (): Promise<void> => {
    const db = await store.connect();
    const names = await db.tableNames();
    const sums = new Map<string, { rows: number; fragments: number; small: number }>();
    const tenantIds = new Set<string>();
    for (const name of names) {
      const split = name.indexOf("__");
      // Shard tables (`memories.s03of08__…`) count under their kind.
      const kind = (split > 0 ? name.slice(0, split) : name).replace(/\.s\d+of\d+$/, "");
      if (split > 0) tenantIds.add(name.slice(split + 2));
      let table = tables.get(name);
      if (!table) {
        table = await db.openTable(name);
        tables.set(name, table);
      }
      const stats = await table.stats().catch(() => null);
      if (!stats) continue;
      const sum = sums.get(kind) ?? { rows: 0, fragments: 0, small: 0 };
      sum.rows += stats.numRows;
      sum.fragments += stats.fragmentStats.numFragments;
      sum.small += stats.fragmentStats.numSmallFragments;
      sums.set(kind, sum);
    }
    rows.reset();
    fragments.reset();
    small.reset();
    for (const [kind, s] of sums) {
      rows.set({ table: kind }, s.rows);
      fragments.set({ table: kind }, s.fragments);
      small.set({ table: kind }, s.small);
    }
    tenants.set(tenantIds.size);
  };
  const once = async (): Promise<void> => {
    if (maxAgeMs > 0 && performance.now() - scannedAt < maxAgeMs) return;
    pending ??= collect()
      .then(() => {
        scannedAt = performance.now();
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  };
}
