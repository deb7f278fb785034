import * as lancedb from "@lancedb/lancedb";
import type { Logger } from "pino";
import { fold, type FoldPlan, fragmentRows, planFold, planTidy } from "./fragment-fold.js";

/** The least time between two tidy sweeps inside a pass (see `runPass`). */
const SWEEP_SPACING_MS = 1_000;

/** What maintenance needs from the store: its open tables (and, for the logs, its write totals). */
export interface MaintainedStore {
  /** Open tables by name, with their vector column if any. */
  maintainedTables(): Promise<Map<string, MaintainedTable>>;
  /** Commits and write calls per table kind (monotonic). */
  writeTotals?(): Promise<Map<string, { commits: number; tasks: number }>>;
  /** Reopens every table on a new LanceDB session (see `LanceStore.renewSession`); none by default. */
  renewSession?(): Promise<{ bytes: number; items: number; tables: number; millis: number }>;
}

/** One table to maintain. */
export interface MaintainedTable {
  table: lancedb.Table;
  vectorColumn?: string;
  /** Wraps each maintenance task (lets the store's caches know its versions change no row); default: runs it. */
  around?: <R>(work: () => Promise<R>) => Promise<R>;
  /** Like `around`, with the table's writes of this process held back meanwhile; default: `around`. */
  exclusive?: <R>(work: () => Promise<R>) => Promise<R>;
}

/** Options for background maintenance. Every field has a default. */
export interface MaintenanceOptions {
  /** Milliseconds between threshold checks (default 30,000; 0 = only `runOnce`). */
  intervalMs?: number;
  /**
   * Compact when a table has at least this many small fragments (default 24). Every fragment costs
   * each engine read a file open per column: at 100k rows, 55 small fragments made a lookup by id
   * ~100 ms of CPU and a user's rows ~250 ms, against 11 ms and 27 ms once compacted.
   */
  smallFragments?: number;
  /** Fold new rows into the indexes when one has at least this many unindexed rows (default 20,000). */
  unindexedRows?: number;
  /**
   * …or at least this share of the table's rows (default 0.05), whichever is fewer. The engine's
   * full-text search scores rows its index does not cover by another route, and they rank below
   * indexed ones: on a 400-turn conversation imported in 19 batches, engine-path recall (an
   * end-user not held) scored R@5 0.17 before the index covered the rows and 0.47 after (the row
   * cache: 0.48; hash embedder, 2026-12-04). Small tables are folded soon, large ones at `unindexedRows`; 0 turns this off (the app does
   * with `AGENTMEM_SHARED_WRITERS=1`: see app.ts).
   */
  unindexedShare?: number;
  /**
   * At most one optimize per table in this many ms (default 30,000), unless it has 8× the small
   * fragments: compaction rewrites every fragment under LanceDB's 1M-row target, so optimizing
   * after every few small commits would rewrite the table over and over.
   */
  minIntervalMs?: number;
  /** Optimize a changed table at least this often even under the thresholds (default 10 min). */
  maxIdleMs?: number;
  /** Old versions are pruned once older than this (default 10 min: readers on another replica may still hold them). */
  keepVersionsMs?: number;
  /** Build a vector index once a table holds this many rows (default 200,000; 0 = never). */
  vectorIndexRows?: number;
  /**
   * Awaited before each heavy task (compaction, vector index build), so it starts in a lull of
   * requests instead of sharing the cores with them (default: starts at once). A compaction of a
   * table far behind (4× the small-fragment or unindexed-row threshold) does not wait: under
   * sustained traffic a lull never comes, fragments pile up and every read pays for each of them
   * (at 1M rows, 290 fragments made a cold recall ~650 ms against ~60 ms compacted).
   */
  whenQuiet?: () => Promise<void>;
  /**
   * Whether requests are quiet now. A table that changed is then compacted even under the
   * thresholds (down to its base and one fold, every row indexed), so reads after a burst find it
   * as compact as raw LanceDB's after one `optimize`: on a 100k-row store of 8 shards, ~12 small
   * unindexed fragments per shard made each engine search ~37 ms against ~10 ms compacted
   * (`bench/tmp`-style run, 2026-12-06 07:11 UTC, load 6–8). Default: never quiet.
   */
  isQuiet?: () => boolean;
  /**
   * A table of at most this many rows is compacted without waiting for a lull (default 250,000;
   * 0 = every table waits). Its pass is bounded — a shard of a 1M-memory tenant at 8 shards holds
   * 125k rows and compacts in ≤ 4 s — so waiting buys little, while 16 shard tables that each
   * waited for a lull (up to 60 s) under ingest left fragments over the threshold for a minute
   * after it ended.
   */
  boundedRows?: number;
  /**
   * Bounded compaction (`fragment-fold.ts`): before each optimize, the fragments besides the
   * largest are moved into one new fragment, so the optimize does not rewrite the table, up to this
   * many bytes per move (default 256 MiB) and no more rows than the largest holds; past either a
   * full rewrite runs. 0 = always full rewrites (the app's choice when other processes write the
   * same tables: the move holds back this process's writes only).
   */
  foldBytes?: number;
  /** A table whose largest fragment holds fewer rows is rewritten whole (default 20,000: a few hundred ms). */
  foldMinRows?: number;
  /**
   * Between full passes, once a table holds this many fragments written since its last `optimize`
   * (default 8; 0 = never), they are folded into one without an `optimize` (a **tidy fold**: no
   * index refresh, no rewrite of indexed rows), at most once per `minIntervalMs`. Under a steady
   * stream of single writes each adds a fragment; waiting for `smallFragments` to compact let
   * tables sit over that line between passes (1M memories, 8 shards, ~100 writes a minute:
   * 20–40 small fragments in the worst shard throughout, 2026-12-06). Needs folds (`foldBytes`).
   */
  tidyFragments?: number;
  /**
   * Between the periodic passes, a **tidy round** this often (default a third of `intervalMs`; 0 =
   * none): every table holding at least half of `smallFragments` small fragments (and
   * `tidyFragments` written since its last optimize) gets a tidy fold, each table at most once per
   * this interval. Within a pass the same sweep runs before a table's turn, at most once a second. Under steady single writes a shard gathered 20–26 fragments between the 30 s
   * passes (soak at 1M, 2026-12-07 02:40 UTC), so one tidy per pass left it at the threshold.
   */
  tidyEveryMs?: number;
  /**
   * After passes that did work, the store's LanceDB session is renewed (`MaintainedStore.renewSession`)
   * once a pass finds nothing left to do, and while passes keep working at most this often
   * (default 300,000 ms; 0 = never): a session that has seen much writing and compaction reads
   * slower than a new one. Not more often: an old session's caches are freed only when V8 collects
   * its table handles (a full GC), so each renewal holds ~30 MiB more until then (in a bare process
   * over 1M memories, 11 renewals without a GC: 218 → 383 MiB; with a GC after each: flat).
   */
  renewSessionMs?: number;
  /**
   * Rows the passes must have rewritten since the last renewal before the next (default 100,000;
   * 0 = any work). The slowdown renewing undoes was measured after 100k rows or more; a renewal
   * also empties the caches every read had filled (the new session is warmed with one read per
   * table, `LanceCollection.warm`, not with what requests had loaded), so the small passes of a
   * read-mostly service (last-used marks, audit rows) do not renew it.
   */
  renewAfterRows?: number;
}

/** Live rows per fragment before a pass (null if unknown), the fold to run first, and the table's bytes per row. */
interface Compaction {
  before: Map<number, number> | null;
  plan: FoldPlan | null;
  bytesPerRow: number;
}

/** Maintenance counters for logs and metrics (monotonic). */
export interface MaintenanceCounters {
  passes: number;
  /** `optimize` runs (compaction + index refresh + version cleanup) that finished. */
  optimizations: number;
  vectorIndexes: number;
  /** Tasks preempted by a concurrent commit (each attempt thrown away counts once). */
  conflicts: number;
  /** Tasks run a second time, with the table's writes held back, after a conflict. */
  retries: number;
  /** Tasks given up after their second attempt conflicted too (another process wrote the table). */
  giveUps: number;
  /** Milliseconds of work thrown away by conflicts (the attempts that were preempted). */
  wastedMillis: number;
  errors: number;
  fragmentsRemoved: number;
  fragmentsAdded: number;
  /** Bounded compactions (`fold`): the fragments besides the base moved into one new (unindexed) fragment. */
  folds: number;
  /** Tidy folds: the fragments written since a table's last optimize moved into one, without an optimize. */
  tidyFolds: number;
  /** Rows rewritten by compaction, folds and full rewrites together (the rows of the fragments they replaced). */
  rowsRewritten: number;
  /** The same in bytes, estimated from each table's bytes per row. */
  bytesRewritten: number;
  versionsRemoved: number;
  bytesRemoved: number;
  /** Milliseconds spent in maintenance work. */
  millis: number;
  /** LanceDB sessions renewed (`renewSessionMs`). */
  sessionRenewals: number;
}

/** A maintenance task name as reported to listeners: `optimize` or `vector_index`. */
export type MaintenanceTask = "optimize" | "fold" | "vector_index";

/** Called after each task with its outcome. */
export type MaintenanceListener = (task: MaintenanceTask, outcome: "ok" | "error", table: string) => void;

const RETRYABLE = /retryable|commit conflict|conflict/i;

/**
 * Background maintenance of every open table: compaction of small fragments, refresh of the
 * full-text and scalar indexes, cleanup of old versions (one `optimize`), and a vector index once
 * a table is large. Threshold-driven on a timer, one table at a time, outside the write queues so
 * requests never wait for it. A task that a concurrent commit preempts (a rewrite of the rows it
 * compacts) runs once more with the table's writes held back, and is given up if even that
 * conflicts (another process wrote): a pass finishes, it never loops rewriting a large table.
 */
export class Maintainer {
  readonly counters: MaintenanceCounters = {
    passes: 0, optimizations: 0, vectorIndexes: 0, conflicts: 0, retries: 0, giveUps: 0, wastedMillis: 0, errors: 0,
    fragmentsRemoved: 0, fragmentsAdded: 0, folds: 0, rowsRewritten: 0, bytesRewritten: 0, versionsRemoved: 0, bytesRemoved: 0, millis: 0,
    sessionRenewals: 0, tidyFolds: 0,
  };
  private timer: NodeJS.Timeout | null = null;
  private tidyTimer: NodeJS.Timeout | null = null;
  private pass: Promise<number> | null = null;
  /** Whether `pass` is a tidy round (a pass asked for meanwhile waits for it instead of joining it). */
  private tidying = false;
  /** When tidy folds were last looked for across the tables (a tidy round or a sweep in a pass). */
  private lastSweep = 0;
  /**
   * A vector index build in flight, and its table: it runs beside the passes (at 1M rows it took
   * 280 s on two busy cores, and a pass that waited for it let the other tables gather hundreds of
   * fragments); passes leave that table alone until it ends. One build at a time.
   */
  private building: { table: string; done: Promise<void> } | null = null;
  private stopped = false;
  /** Per table: when it was last optimized (or first seen), at which version, and whether it ever was. */
  private readonly lastOptimized = new Map<string, { at: number; version: number; ran: boolean }>();
  /**
   * Per table: the highest fragment id after its last optimize in this process (every fragment up
   * to it is covered by the indexes), and when it was last tidied. Unknown until a first optimize.
   */
  private readonly indexedUpTo = new Map<string, number>();
  private readonly lastTidied = new Map<string, number>();
  private readonly listeners: MaintenanceListener[] = [];
  private busyBefore = false;
  /** Whether a pass did work since the session was last renewed, and when that was. */
  private workSinceRenewal = false;
  private lastRenewal = Date.now();
  /** `counters.rowsRewritten` at the last renewal. */
  private rowsAtRenewal = 0;
  private lastWrites = "";
  /** Resolved by `stop`, so a pass waiting for a lull in requests ends at once. */
  private signalStop: () => void = () => undefined;
  private readonly stopping = new Promise<void>((resolve) => (this.signalStop = resolve));

  constructor(
    private readonly store: MaintainedStore,
    private readonly logger: Logger,
    private readonly options: MaintenanceOptions = {},
  ) {}

  /** Adds a listener for finished tasks (e.g. a Prometheus counter). */
  onRun(listener: MaintenanceListener): void {
    this.listeners.push(listener);
  }

  /** Starts the periodic pass (and the tidy rounds between passes). */
  start(): void {
    const ms = this.options.intervalMs ?? 30_000;
    if (ms > 0 && !this.timer) {
      this.timer = setInterval(() => void this.runOnce(), ms);
      this.timer.unref();
    }
    const tidyMs = this.tidyEveryMs();
    if (ms > 0 && tidyMs > 0 && !this.tidyTimer) {
      this.tidyTimer = setInterval(() => void this.tidyRound(), tidyMs);
      this.tidyTimer.unref();
    }
  }

  private tidyEveryMs(): number {
    return this.options.tidyEveryMs ?? Math.round((this.options.intervalMs ?? 30_000) / 3);
  }

  /**
   * A tidy round between passes (see `tidyEveryMs`); how many tidy folds ran. Skipped while a pass
   * runs (it tidies between its tables itself); a pass asked for meanwhile starts after it.
   */
  tidyRound(): Promise<number> {
    if (this.pass || this.stopped) return Promise.resolve(0);
    // No ordering by backlog here: that reads every table's stats, and only tables this process
    // has optimized (and so can tidy) need reading.
    const run = async () => this.tidyPastThreshold([...(await this.store.maintainedTables())], "");
    this.tidying = true;
    const round = run().finally(() => {
      this.pass = null;
      this.tidying = false;
    });
    this.pass = round;
    return round;
  }

  /** Stops the timer and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.signalStop();
    if (this.timer) clearInterval(this.timer);
    if (this.tidyTimer) clearInterval(this.tidyTimer);
    this.timer = null;
    this.tidyTimer = null;
    await this.pass;
    await this.building?.done;
  }

  /** Resolves once no vector index build runs (for tests and benches). */
  async indexed(): Promise<void> {
    while (this.building) await this.building.done;
  }

  /** Waits for `whenQuiet`; false when `stop` came first (shutdown does not wait for a lull). */
  private async quietOrStopped(): Promise<boolean> {
    if (this.options.whenQuiet) await Promise.race([this.options.whenQuiet(), this.stopping]);
    return !this.stopped;
  }

  /** Runs one pass now (or joins the one in flight); resolves with how many tasks ran. */
  runOnce(force = false): Promise<number> {
    if (this.pass && this.tidying) return this.pass.then(() => this.runOnce(force));
    this.pass ??= this.runPass(force).finally(() => (this.pass = null));
    return this.pass;
  }

  private async runPass(force: boolean): Promise<number> {
    this.counters.passes++;
    const passStarted = Date.now();
    let tasks = 0;
    // The tables furthest behind first: one pass can take minutes at 1M rows, and a table waiting
    // behind another's compaction or index build keeps gathering fragments meanwhile.
    const tables = await this.byBacklog(await this.store.maintainedTables());
    for (const [name, entry] of tables) {
      if (this.stopped) break;
      // Before a table's turn (a full pass takes seconds at 1M) the others at half the
      // small-fragment line are tidied, so tables waiting behind the others stop gathering
      // fragments. At most once a second: each sweep reads every table's stats, and over many
      // tenants' idle tables a sweep before every turn would be O(tables²) per pass.
      if (Date.now() - this.lastSweep >= Math.min(SWEEP_SPACING_MS, this.tidyEveryMs())) tasks += await this.tidyPastThreshold(tables, name);
      tasks += await this.guarded(name, () => this.maintain(name, entry, force, passStarted));
    }
    if (tasks === 0 && this.busyBefore) this.logger.info({ counters: this.counters }, "maintenance idle");
    this.busyBefore = tasks > 0;
    await this.renewSession(tasks);
    await this.logWrites();
    return tasks;
  }

  /** Renews the store's LanceDB session after `renewAfterRows` rows of work: when a pass finds nothing to do, else at most every `renewSessionMs`. */
  private async renewSession(tasks: number): Promise<void> {
    const every = this.options.renewSessionMs ?? 300_000;
    if (tasks > 0) this.workSinceRenewal = true;
    if (!this.store.renewSession || every <= 0 || this.stopped || !this.workSinceRenewal) return;
    if (this.counters.rowsRewritten - this.rowsAtRenewal < (this.options.renewAfterRows ?? 100_000)) return;
    if (tasks > 0 && Date.now() - this.lastRenewal < every) return;
    this.workSinceRenewal = false;
    this.lastRenewal = Date.now();
    this.rowsAtRenewal = this.counters.rowsRewritten;
    try {
      const renewal = await this.store.renewSession();
      this.counters.sessionRenewals++;
      this.logger.info({ ...renewal, millis: Math.round(renewal.millis) }, "lance session renewed");
    } catch (error) {
      this.counters.errors++;
      this.logger.warn({ err: String(error) }, "lance session renewal failed");
    }
  }

  /** The tables ordered by small fragments, most first (a table whose stats fail keeps its place last). */
  private async byBacklog(tables: Map<string, MaintainedTable>): Promise<[string, MaintainedTable][]> {
    const small = await Promise.all(
      [...tables].map(async ([name, entry]) => ({ name, entry, small: await entry.table.stats().then((s) => s.fragmentStats.numSmallFragments, () => -1) })),
    );
    return small.sort((a, b) => b.small - a.small).map(({ name, entry }) => [name, entry]);
  }

  /** Logs commits and mean group size per table kind when they moved since the last pass. */
  private async logWrites(): Promise<void> {
    const totals = await this.store.writeTotals?.();
    if (!totals) return;
    const key = JSON.stringify([...totals]);
    if (key === this.lastWrites) return;
    this.lastWrites = key;
    const kinds = Object.fromEntries([...totals].map(([k, t]) => [k, { ...t, meanGroup: t.commits > 0 ? Math.round((t.tasks / t.commits) * 10) / 10 : 0 }]));
    this.logger.info({ kinds }, "write stats");
  }

  private async maintain(name: string, entry: MaintainedTable, force: boolean, passStarted: number): Promise<number> {
    const { table, vectorColumn } = entry;
    if (this.building?.table === name) return 0;
    const stats = await table.stats();
    const indices = await table.listIndices();
    const unindexed = Math.max(0, ...indices.map((i) => (i as { numUnindexedRows?: number }).numUnindexedRows ?? 0));
    const version = await table.version();
    // A table first seen now counts as optimized now: "overdue" starts from here.
    if (!this.lastOptimized.has(name)) this.lastOptimized.set(name, { at: Date.now(), version: -1, ran: false });
    const last = this.lastOptimized.get(name)!;
    const changed = version !== last.version;
    const overdue = changed && Date.now() - last.at >= (this.options.maxIdleMs ?? 10 * 60_000);
    let tasks = 0;
    const small = stats.fragmentStats.numSmallFragments;
    const smallLimit = this.options.smallFragments ?? 24;
    // Counted from the start of the pass that ran it (with 5% slack for timer jitter): counted from
    // its end, a pass every 30 s found a table optimized 30 s ago "not rested" and skipped a period.
    const rested = !last.ran || Date.now() - last.at >= 0.95 * (this.options.minIntervalMs ?? 30_000) || small >= 8 * smallLimit;
    const unindexedLimit = this.options.unindexedRows ?? 20_000;
    const share = this.options.unindexedShare ?? 0.05;
    const unindexedDue = share > 0 ? Math.min(unindexedLimit, Math.max(1, Math.ceil(stats.numRows * share))) : unindexedLimit;
    // Under the thresholds but untidy, and nobody is asking: compact now rather than read it as it is.
    const tidy = changed && rested && (stats.fragmentStats.numFragments > 2 || unindexed > 0) && (this.options.isQuiet?.() ?? false);
    const dueOtherwise = (force && changed) || (rested && unindexed >= unindexedDue) || overdue || tidy;
    // Past the small-fragment threshold alone, a tidy fold does when it can: it moves only the
    // fragments written since the last optimize, while a full pass also refreshes every index.
    // Doing full passes there kept a cycle of passes over 16 shard tables longer than the time a
    // table takes to gather 24 fragments under steady writes, so every visit found one due.
    if (!dueOtherwise && rested && small >= smallLimit && (await this.tidy(name, entry, stats, last))) return 1;
    if (dueOtherwise || (rested && small >= smallLimit)) {
      const compaction = await this.compactionPlan(name, table, stats);
      // A fold bounds the pass by what was written since the last full compaction, whatever the table's size.
      const bounded = compaction.plan !== null || stats.numRows <= (this.options.boundedRows ?? 250_000);
      const behind = bounded || small >= 4 * smallLimit || unindexed >= 4 * unindexedLimit;
      if (behind ? this.stopped : !(await this.quietOrStopped())) return tasks;
      await this.optimize(name, entry, compaction, stats.fragmentStats.numFragments, unindexed);
      tasks++;
    } else if (await this.tidy(name, entry, stats, last)) return 1; // not an optimize: "rested" and "overdue" still count from the last one
    const threshold = this.options.vectorIndexRows ?? 200_000;
    if (vectorColumn && threshold > 0 && stats.numRows >= threshold && !this.building && !indices.some((i) => i.columns.includes(vectorColumn))) {
      const build = async () => {
        if (await this.quietOrStopped()) await this.vectorIndex(name, entry, vectorColumn, stats.numRows);
      };
      const done = build()
        .catch((error) => {
          this.counters.errors++;
          this.logger.warn({ table: name, err: String(error) }, "vector index build failed");
        })
        .finally(() => (this.building = null));
      this.building = { table: name, done };
      tasks++;
    }
    if (tasks > 0) this.lastOptimized.set(name, { at: passStarted, version: await table.version(), ran: true });
    return tasks;
  }

  /**
   * Tidy folds for every table but `turn` (maintained next) holding half of `smallFragments` small
   * fragments or more (each at most once per tidy round interval, see `tidy`); how many ran. Run
   * by the tidy rounds and, within a pass, before each table's turn: after an ingest a pass does a
   * full pass per table for its unindexed rows (4.7–6.7 s each over 16 shard tables at 1M), and
   * before this the tables last in line sat past the line for minutes (a 10-minute soak: under it
   * from 562 s after ingest, 2026-12-07).
   */
  private async tidyPastThreshold(tables: readonly [string, MaintainedTable][], turn: string): Promise<number> {
    // Half the small-fragment line: a table is tidied before it reaches it, not once it has.
    const smallLimit = Math.max(this.options.tidyFragments ?? 8, Math.ceil((this.options.smallFragments ?? 24) / 2));
    if ((this.options.tidyFragments ?? 8) <= 0) return 0;
    this.lastSweep = Date.now();
    let tidied = 0;
    for (const [name, entry] of tables) {
      if (this.stopped || name === turn || this.building?.table === name || !this.indexedUpTo.has(name)) continue;
      const last = this.lastOptimized.get(name);
      const stats = last ? await entry.table.stats().catch(() => null) : null;
      if (!last || !stats || stats.fragmentStats.numSmallFragments < smallLimit) continue;
      tidied += await this.guarded(name, async () => ((await this.tidy(name, entry, stats, last)) ? 1 : 0));
    }
    return tidied;
  }

  /** Runs one table's maintenance; a failure is counted and logged (0 tasks), and the pass goes on. */
  private async guarded(name: string, run: () => Promise<number>): Promise<number> {
    try {
      return await run();
    } catch (error) {
      this.counters.errors++;
      this.logger.warn({ table: name, err: String(error) }, "table maintenance failed");
      return 0;
    }
  }

  /**
   * A tidy fold (`tidyFragments`) when the table holds that many small fragments and enough of them
   * were written since its last optimize; true when one ran. Waits for no lull: it moves only the
   * rows written since that optimize.
   */
  private async tidy(name: string, entry: MaintainedTable, stats: lancedb.TableStatistics, last: { at: number; ran: boolean }): Promise<boolean> {
    const least = this.options.tidyFragments ?? 8;
    const indexedUpTo = this.indexedUpTo.get(name);
    if (least <= 0 || indexedUpTo === undefined || stats.fragmentStats.numSmallFragments < least || this.stopped) return false;
    // Each table at most once per tidy round's interval (with 5% slack for timer jitter).
    const rest = 0.95 * Math.min(this.options.minIntervalMs ?? 30_000, this.tidyEveryMs() || Infinity);
    if (Date.now() - Math.max(last.at, this.lastTidied.get(name) ?? 0) < rest || !(await this.foldable(entry.table))) return false;
    const rows = await this.fragments(entry.table, stats);
    const plan = rows ? planTidy(rows, indexedUpTo, least) : null;
    if (!plan) return false;
    this.lastTidied.set(name, Date.now());
    const started = performance.now();
    const moved = await this.fold(name, entry, plan, stats.numRows > 0 ? stats.totalBytes / stats.numRows : 0);
    this.counters.tidyFolds++;
    this.logger.info({ table: name, fragments: plan.fragments.length, rows: moved, millis: Math.round(performance.now() - started) }, "fragments tidied");
    return true;
  }

  /** The table's live rows per fragment (null if unknown) and the fold to run before its optimize (null: none). */
  private async compactionPlan(name: string, table: lancedb.Table, stats: lancedb.TableStatistics): Promise<Compaction> {
    const before = await this.fragments(table, stats);
    const bytesPerRow = stats.numRows > 0 ? stats.totalBytes / stats.numRows : 0;
    const plan = before && (await this.foldable(table)) ? planFold(before, this.foldLimits(bytesPerRow)) : null;
    return { before, plan, bytesPerRow };
  }

  private async optimize(name: string, entry: MaintainedTable, compaction: Compaction, fragmentsBefore: number, unindexedBefore: number): Promise<void> {
    const { table } = entry;
    const { before, plan, bytesPerRow } = compaction;
    const started = performance.now();
    const keep = this.options.keepVersionsMs ?? 10 * 60_000;
    // A fold that fails leaves the table as it was; the optimize below then rewrites it whole.
    const folded = plan && plan.fragments.length > 0
      ? await this.fold(name, entry, plan, bytesPerRow).catch((error) => {
          this.counters.errors++;
          this.logger.warn({ table: name, err: String(error) }, "fold failed; compacting the whole table");
          return 0;
        })
      : 0;
    const result = await this.task("optimize", name, entry, () => table.optimize({ cleanupOlderThan: new Date(Date.now() - keep) }));
    const millis = performance.now() - started;
    const c = this.counters;
    c.optimizations++;
    c.millis += millis;
    c.fragmentsRemoved += result.compaction.fragmentsRemoved;
    c.fragmentsAdded += result.compaction.fragmentsAdded;
    c.versionsRemoved += result.prune.oldVersionsRemoved;
    c.bytesRemoved += result.prune.bytesRemoved;
    // The rows of the fragments the compaction replaced (those the fold moved are counted by it).
    let rewritten = 0;
    // Every fragment there now is covered by the indexes (a write that landed during the optimize
    // is taken as covered too: it is then only left out of tidy folds until the next optimize).
    // Read for tidy folds, and for the rewrite count when the compaction replaced fragments.
    const tidying = (this.options.tidyFragments ?? 8) > 0 && (await this.foldable(table));
    const after = tidying || (before && result.compaction.fragmentsRemoved > 0) ? await fragmentRows(table).catch(() => null) : null;
    if (after && tidying) this.indexedUpTo.set(name, Math.max(-1, ...after.keys()));
    else this.indexedUpTo.delete(name);
    if (before && after) {
      const moved = new Set(plan?.fragments ?? []);
      for (const [id, rows] of before) if (!moved.has(id) && !after.has(id)) rewritten += rows;
    }
    c.rowsRewritten += rewritten;
    c.bytesRewritten += rewritten * bytesPerRow;
    const stats = await table.stats();
    this.logger.info(
      {
        table: name, millis: Math.round(millis), fragmentsBefore, fragmentsAfter: stats.fragmentStats.numFragments, unindexedBefore,
        fragmentsRemoved: result.compaction.fragmentsRemoved, versionsRemoved: result.prune.oldVersionsRemoved, bytesRemoved: result.prune.bytesRemoved,
        folded, rowsRewritten: rewritten + folded, bytesRewritten: Math.round((rewritten + folded) * bytesPerRow),
      },
      "table maintained",
    );
  }

  private foldLimits(bytesPerRow: number) {
    return { maxBytes: this.options.foldBytes ?? 256 * 1024 * 1024, bytesPerRow, minBaseRows: this.options.foldMinRows ?? 20_000 };
  }

  /** Whether a fold can spare the base: folds are on, and the table has an index to tell the new fragment from it. */
  private async foldable(table: lancedb.Table): Promise<boolean> {
    return (this.options.foldBytes ?? 1) > 0 && (await table.listIndices()).length > 0;
  }

  /**
   * Live rows per fragment, or null when the row addresses do not match the table's fragments
   * (a table with stable row ids): then no fold, and no rewrite count. Writes may land meanwhile,
   * so the count must lie between the fragments before and after the scan.
   */
  private async fragments(table: lancedb.Table, stats: lancedb.TableStatistics): Promise<Map<number, number> | null> {
    const rows = await fragmentRows(table).catch(() => null);
    if (!rows) return null;
    const later = (await table.stats()).fragmentStats.numFragments;
    const earlier = stats.fragmentStats.numFragments;
    return rows.size >= Math.min(earlier, later) && rows.size <= Math.max(earlier, later) ? rows : null;
  }

  /** Moves the plan's fragments (indexed, besides the base) into one new fragment, with the table's writes held back. */
  private async fold(name: string, entry: MaintainedTable, plan: FoldPlan, bytesPerRow: number): Promise<number> {
    const started = performance.now();
    const moved = await this.task("fold", name, entry, () => fold(entry.table, plan), true);
    const millis = performance.now() - started;
    const c = this.counters;
    c.folds++;
    c.millis += millis;
    c.rowsRewritten += moved;
    c.bytesRewritten += moved * bytesPerRow;
    this.logger.debug({ table: name, fragments: plan.fragments.length, rows: moved, millis: Math.round(millis) }, "fragments folded");
    return moved;
  }

  private async vectorIndex(name: string, entry: MaintainedTable, column: string, rows: number): Promise<void> {
    const { table } = entry;
    const started = performance.now();
    await this.task("vector_index", name, entry, () =>
      table.createIndex(column, { config: lancedb.Index.ivfPq({ distanceType: "cosine" }), replace: false }),
    );
    const millis = performance.now() - started;
    this.counters.vectorIndexes++;
    this.counters.millis += millis;
    this.logger.info({ table: name, column, rows, millis: Math.round(millis) }, "vector index built");
  }

  /**
   * Runs a task alongside the table's writers (`held`: with them held back from the start); if a
   * concurrent commit preempts it, once more with the table's writes held back (so no write of this
   * process can preempt it again), and no more.
   */
  private async task<R>(task: MaintenanceTask, name: string, entry: MaintainedTable, run: () => Promise<R>, held = false): Promise<R> {
    const around = entry.around ?? ((work) => work());
    const exclusive = entry.exclusive ?? around;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        const result = await (attempt === 1 && !held ? around(run) : exclusive(run));
        for (const l of this.listeners) l(task, "ok", name);
        return result;
      } catch (error) {
        const conflict = RETRYABLE.test(String(error));
        if (conflict) {
          this.counters.conflicts++;
          this.counters.wastedMillis += performance.now() - started;
        }
        if (conflict && attempt === 1) {
          this.counters.retries++;
          this.logger.info({ table: name, task, wastedMillis: Math.round(performance.now() - started) }, "maintenance preempted by a write; once more with writes held");
          continue;
        }
        if (conflict) {
          this.counters.giveUps++;
          this.logger.warn({ table: name, task }, "maintenance preempted twice (another process writes this table); given up until the next pass");
        }
        for (const l of this.listeners) l(task, "error", name);
        throw error;
      }
    }
  }
}
