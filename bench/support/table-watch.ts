import type { ServerProcess } from "./server-process.js";
import { since } from "./stats.js";
import { tableStats } from "./table-stats.js";

/** The server's compaction threshold (small fragments per table, `MaintenanceOptions.smallFragments`). */
export const SMALL_FRAGMENT_THRESHOLD = 24;

/**
 * Samples the data directory every 2 s (or `everyMs`) from the end of ingest: the most small fragments any one
 * `memories`/`episodes` table has, when that first fell under the compaction threshold, and the
 * server's peak RSS.
 */
export function watchTables(server: ServerProcess, data: string, everyMs = 2_000) {
  const started = performance.now();
  const samples: { s: number; maxSmall: number; tables: number; fragments: number }[] = [];
  let underAt: number | null = null;
  let peakRss = server.rssMiB();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      peakRss = Math.max(peakRss, server.rssMiB());
      const stats = await tableStats(data).catch(() => null);
      if (stats) {
        const kinds = Object.values(stats);
        const maxSmall = Math.max(0, ...kinds.map((k) => k.maxSmall));
        const s = since(started) / 1000;
        samples.push({ s, maxSmall, tables: kinds.reduce((n, k) => n + k.tables, 0), fragments: kinds.reduce((n, k) => n + k.fragments, 0) });
        if (underAt === null && maxSmall < SMALL_FRAGMENT_THRESHOLD) underAt = s;
        if (underAt !== null && maxSmall >= SMALL_FRAGMENT_THRESHOLD) underAt = null; // back over: not settled yet
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    get underAt() {
      return underAt;
    },
    get peakRss() {
      return Math.max(peakRss, server.rssMiB());
    },
    samples,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
