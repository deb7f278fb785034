import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Latency percentiles in milliseconds. */
export interface Latency {
  n: number;
  p50: number;
  p90: number;
  p99: number;
}

/** Nearest-rank percentiles of unsorted samples. */
export function latency(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const round = (x: number) => Math.round(x * 10) / 10;
  return { n: sorted.length, p50: round(at(0.5)), p90: round(at(0.9)), p99: round(at(0.99)) };
}

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "..", "results");

/** Writes `bench/results/<name>.json` (committed: docs/recall.md's table is generated from it) and returns its path. */
export function writeResults(name: string, data: unknown): string {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${name}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}
