import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

describe("docs/recall.md", () => {
  it("shows the table scripts/bench-tables.mjs generates from bench/results/recall-quality.json", async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, "scripts", "bench-tables.mjs"), "--check"], { cwd: ROOT });
    expect(stderr).toBe("");
    expect(stdout).toBe("");
  });

  it("reports both folds and every row of the results", () => {
    const doc = readFileSync(join(ROOT, "docs", "recall.md"), "utf8");
    const result = JSON.parse(readFileSync(join(ROOT, "bench", "results", "recall-quality.json"), "utf8")) as {
      rows: { name: string }[];
      folds: { tunedOn: string; scoredOn: string }[];
    };
    expect(result.folds.length).toBeGreaterThanOrEqual(2);
    for (const r of result.rows) expect(doc).toContain(`| ${r.name} |`.replace("| agentmem default |", "| **agentmem default** |"));
    for (const f of result.folds) expect(doc).toContain(`| ${f.tunedOn} | ${f.scoredOn} |`);
  });
});
