import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { LanceStore, MEMORIES } from "../../src/adapters/lancedb/lance-store.js";
import { Maintainer, type MaintenanceTask } from "../../src/adapters/lancedb/maintenance.js";
import type { MemoryRecord } from "../../src/core/records.js";
import { where } from "../../src/core/condition.js";
import { createMetrics } from "../../src/server/metrics.js";
import { AccessTracker } from "../../src/services/memory/access-tracker.js";

const DIM = 64;
const silent = pino({ level: "silent" });
const dirs: string[] = [];
const stores: LanceStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function memory(i: number): MemoryRecord {
  const vector = new Float32Array(DIM);
  for (let j = 0; j < DIM; j++) vector[j] = Math.sin(i * 0.37 + j);
  return {
    id: `m${i}`, namespace: "", agent: "", session: "", user: `u${i % 20}`, text: `harbour log entry ${i} about the tide and the pilots`,
    factType: "semantic", category: "", importance: 5, entities: [], tags: {}, pinned: false, contentHash: `h${i}`, vector,
    sourceIds: [], parentId: "", createdAt: 1_000 + i, validFrom: 1, validTo: null, supersededBy: "", eventDate: null, lastAccessedAt: 1,
    accessCount: 0, channel: "", emotions: [], intent: "", embedModel: "t", role: "", name: "", traceNumber: 0,
  };
}

/** A store whose `memories` table has `fragments` fragments of `perFragment` rows: a rewrite that takes a while. */
async function fragmentedStore(fragments: number, perFragment: number): Promise<LanceStore> {
  const dir = await mkdtemp(join(tmpdir(), "agentmem-conflicts-"));
  dirs.push(dir);
  const store = new LanceStore({ uri: dir, dimension: DIM });
  stores.push(store);
  const memories = await store.collection("t", MEMORIES);
  for (let f = 0; f < fragments; f++) await memories.upsert(Array.from({ length: perFragment }, (_, k) => memory(f * perFragment + k)));
  return store;
}

/** Records every task outcome per table. */
function outcomes(maintainer: Maintainer): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  maintainer.onRun((task: MaintenanceTask, outcome, table) => seen.set(table, [...(seen.get(table) ?? []), `${task}:${outcome}`]));
  return seen;
}

describe("maintenance that finishes under concurrent writes", () => {
  it("a long rewrite and concurrent marks both land: no mark lost, no rewrite retried more than once", async () => {
    const store = await fragmentedStore(40, 400);
    const memories = await store.collection("t", MEMORIES);
    const rows = await memories.find(where.all(), { withoutVector: true });
    const tracker = new AccessTracker(store, silent, { checkMs: 0 });
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 2, vectorIndexRows: 0 });
    const seen = outcomes(maintainer);
    const memoriesVersion = await memories.version();

    // Marks flushed all through the pass (the memory_use table gets maintained in it too).
    const expected = new Map<string, number>();
    let done = false;
    let flushes = 0;
    const marking = (async () => {
      for (let round = 0; !done || round < 3; round++) {
        const used = rows.slice((round * 37) % rows.length, ((round * 37) % rows.length) + 50);
        tracker.touch("t", used, 10_000 + round);
        for (const m of used) expected.set(m.id, (expected.get(m.id) ?? 0) + 1);
        await tracker.flush("t");
        flushes++;
      }
    })();
    const started = performance.now();
    await maintainer.runOnce(true);
    const passMillis = performance.now() - started;
    done = true;
    await marking;
    // Another pass folds what the marks wrote meanwhile.
    await maintainer.runOnce(true);

    expect(flushes).toBeGreaterThan(3);
    expect(passMillis).toBeGreaterThan(100);
    const memoriesName = memories.engine.lanceTable.name;
    expect(seen.get(memoriesName)).toEqual(["optimize:ok"]);
    expect((await memories.engine.lanceTable.stats()).fragmentStats.numFragments).toBe(1);
    // The marks never touched the memory rows: only the compaction made versions there.
    const versions = await memories.engine.lanceTable.listVersions();
    expect(versions.filter((v) => v.version > memoriesVersion).length).toBeLessThanOrEqual(3);
    for (const outcomesOfTable of seen.values()) expect(outcomesOfTable.every((o) => o.endsWith(":ok"))).toBe(true);
    expect(maintainer.counters.giveUps).toBe(0);
    expect(maintainer.counters.errors).toBe(0);
    expect(maintainer.counters.retries).toBeLessThanOrEqual(maintainer.counters.conflicts);
    expect(maintainer.counters.conflicts).toBeLessThanOrEqual(2);

    const stored = await tracker.current("t", rows, { fresh: true });
    const counted = new Map(stored.filter((m) => m.accessCount > 0).map((m) => [m.id, m.accessCount]));
    expect(counted).toEqual(expected);
    const uses = await store.memoryUse("t");
    expect(await uses.count(where.all())).toBe(expected.size);
  });

  it("a write that rewrites rows preempts the first attempt; the second runs with writes held and completes", async () => {
    const store = await fragmentedStore(40, 400);
    const memories = await store.collection("t", MEMORIES);
    const maintainer = new Maintainer(store, silent, { intervalMs: 0, smallFragments: 2, vectorIndexRows: 0 });
    const seen = outcomes(maintainer);
    const metrics = createMetrics({ maintenance: maintainer, processMetrics: false });

    // Patches of stored rows (what marks used to be) commit all through the rewrite.
    let done = false;
    let patches = 0;
    const patching = (async () => {
      for (let i = 0; !done; i++) {
        await memories.patch([`m${(i * 131) % 16_000}`], (row) => ({ ...row, importance: 1 + (i % 9) }));
        patches++;
      }
    })();
    while (patches < 2) await new Promise((r) => setTimeout(r, 5));
    // The pass goes on to the other tables after this one's optimize; patches landing after it
    // (the one held through the rewrite, and those the loop makes meanwhile) each append a fragment.
    let patchedByOptimize = Number.NaN;
    maintainer.onRun((_task, _outcome, table) => {
      if (table === memories.engine.lanceTable.name && Number.isNaN(patchedByOptimize)) patchedByOptimize = patches;
    });
    await maintainer.runOnce(true);
    done = true;
    await patching;
    const latePatches = patches - patchedByOptimize;

    expect(seen.get(memories.engine.lanceTable.name)).toEqual(["optimize:ok"]);
    expect(maintainer.counters.conflicts).toBe(1);
    expect(maintainer.counters.retries).toBe(1);
    expect(maintainer.counters.giveUps).toBe(0);
    expect(maintainer.counters.wastedMillis).toBeGreaterThan(0);
    expect(maintainer.counters.optimizations).toBe(1);
    expect((await memories.engine.lanceTable.stats()).fragmentStats.numFragments).toBeLessThanOrEqual(2 + latePatches);
    expect(await memories.count(where.all())).toBe(16_000);

    const text = (await metrics.render()).body;
    expect(text).toContain("agentmem_maintenance_conflicts_total 1\n");
    expect(text).toContain("agentmem_maintenance_retries_total 1\n");
    expect(text).toContain("agentmem_maintenance_give_ups_total 0\n");
    expect(text).toContain("agentmem_maintenance_optimizations_total 1\n");
    const wasted = Number(/^agentmem_maintenance_wasted_rewrite_seconds_total (\S+)$/m.exec(text)?.[1]);
    expect(wasted).toBeCloseTo(maintainer.counters.wastedMillis / 1000, 6);
  });
});
