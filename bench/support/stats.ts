import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
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

/** A printed table, kept so `writeResults` can store it for `docs/benchmarks.md`. */
export interface PrintedTable {
  title: string;
  columns: string[];
  rows: string[][];
}

const printed: PrintedTable[] = [];

/** Prints rows as an aligned text table (and keeps it for the results file). */
export function printTable(title: string, rows: readonly Record<string, string | number>[]): void {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const cell = (v: string | number | undefined) => (typeof v === "number" ? String(Math.round(v * 100) / 100) : (v ?? ""));
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  printed.push({ title, columns, rows: cells });
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i].length)));
  const line = (values: string[]) => values.map((v, i) => v.padStart(widths[i])).join("  ");
  process.stdout.write(`\n${title}\n${line(columns)}\n${line(widths.map((w) => "-".repeat(w)))}\n`);
  for (const r of cells) process.stdout.write(`${line(r)}\n`);
}

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), "..", "results");

/**
 * Writes `bench/results/<name>.json` (replacing the previous run's: a superseded figure is deleted)
 * with when, where and how it was measured, the tables printed so far and `data`; returns its path.
 * `scripts/bench-tables.mjs` renders these files into `docs/benchmarks.md`.
 */
export function writeResults(name: string, data: unknown): string {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${name}.json`);
  const script = process.env.npm_lifecycle_event;
  const args = process.argv.slice(2).join(" ");
  const envelope = {
    bench: name,
    date: new Date().toISOString(),
    machine: { cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, loadavg: loadavg().map((l) => Math.round(l * 100) / 100) },
    command: script ? `npm run ${script}${args ? ` -- ${args}` : ""}` : `tsx ${process.argv[1] ?? ""} ${args}`.trim(),
    tables: printed,
    data,
  };
  writeFileSync(file, `${JSON.stringify(envelope, null, 2)}\n`);
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
