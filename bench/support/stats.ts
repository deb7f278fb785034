import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Latency summary in milliseconds. */
export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

/** The q-quantile (nearest rank) of unsorted samples. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** p50 / p90 / p99 / mean / max of samples. */
export function summarize(samples: readonly number[]): Summary {
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  return {
    n: samples.length,
    p50: round(quantile(samples, 0.5)),
    p90: round(quantile(samples, 0.9)),
    p99: round(quantile(samples, 0.99)),
    mean: round(mean),
    max: round(Math.max(...samples)),
  };
}

/** The median of numbers (used to fold repeated runs). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Prints rows as an aligned text table. */
export function printTable(title: string, rows: readonly Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const cell = (v: string | number | undefined) => (typeof v === "number" ? String(Math.round(v * 100) / 100) : (v ?? ""));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padStart(widths[i])).join("  ");
  process.stdout.write(`\n${title}\n${line(columns)}\n${line(widths.map((w) => "-".repeat(w)))}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => cell(r[c])))}\n`);
}

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "..", "results");

/** Writes `bench/results/<name>-<timestamp>.json` and returns its path. */
export function writeResults(name: string, data: unknown): string {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
  return file;
}

/** Milliseconds since `start` (a `performance.now()` value). */
export function since(start: number): number {
  return performance.now() - start;
}

/** Runs `task(i)` for i in [0, total) with at most `concurrency` in flight. */
export async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
}
