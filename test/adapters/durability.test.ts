import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";

// Which durability a commit has is a matter of system calls, so this test counts them: a child
// process commits through LanceStore under `strace`, once per mode.
const STRACE = "/usr/bin/strace";
const ROOT = join(import.meta.dirname, "..", "..");
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-durability-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const SCRIPT = `
import { LanceStore } from ${JSON.stringify(join(ROOT, "src/adapters/lancedb/lance-store.ts"))};
const [data, durability] = process.argv.slice(2);
const store = new LanceStore({ uri: data, dimension: 4, hotRowsBytes: 0, durability });
const episodes = await store.episodes("t");
await episodes.insertNew([{ namespace: "", agent: "", session: "", user: "u", id: "e0", role: "user", name: "", content: "before", observedAt: 0, traceNumber: 0, parentId: "", channel: "", vector: new Float32Array(4).fill(0.5), createdAt: 0, memoryId: "" }]);
process.stdout.write("MARK\\n");
await episodes.insertNew([{ namespace: "", agent: "", session: "", user: "u", id: "e1", role: "user", name: "", content: "acknowledged", observedAt: 0, traceNumber: 1, parentId: "", channel: "", vector: new Float32Array(4).fill(0.5), createdAt: 0, memoryId: "" }]);
await store.close();
`;

/** fsync/fdatasync calls the child made on the table's files during its second commit. */
async function syncedPaths(durability: string): Promise<string[]> {
  const script = join(dir, "commit.mts");
  await writeFile(script, SCRIPT);
  const trace = join(dir, `trace-${durability}.txt`);
  const data = join(dir, `data-${durability}`);
  await new Promise<void>((resolve, reject) =>
    execFile(
      STRACE,
      ["-f", "-qq", "-y", "-e", "trace=fsync,fdatasync,write", "-o", trace, process.execPath, "--import", "tsx", script, data, durability],
      { cwd: ROOT, env: { ...process.env, LANCEDB_LOG: "error" } },
      (error) => (error ? reject(error) : resolve()),
    ),
  );
  const lines = (await readFile(trace, "utf8")).split("\n");
  const mark = lines.findIndex((l) => l.includes('"MARK\\n"'));
  return lines
    .slice(mark)
    .filter((l) => /\b(fsync|fdatasync)\(\d+<[^>]*episodes(\.s\d+of\d+)?__t\.lance/.test(l))
    .map((l) => /<([^>]*)>/.exec(l)?.[1] ?? "");
}

describe("AGENTMEM_DURABILITY", { timeout: 120_000 }, () => {
  it("defaults to process and accepts fsync", () => {
    expect(loadConfig({ data: "/tmp/x" }, {}).storage.durability).toBe("process");
    expect(loadConfig({ data: "/tmp/x" }, { AGENTMEM_DURABILITY: "fsync" }).storage.durability).toBe("fsync");
    expect(() => loadConfig({ data: "/tmp/x" }, { AGENTMEM_DURABILITY: "sometimes" })).toThrow(/storage\.durability/);
  });

  it.skipIf(!existsSync(STRACE))("fsync: a commit's data file, manifest and directories are fsynced before it returns; process: none are", async () => {
    const fsynced = await syncedPaths("fsync");
    expect(fsynced.some((p) => /\/data\/[^/]+\.lance$/.test(p))).toBe(true);
    expect(fsynced.some((p) => /\/_versions\/[^/]+\.manifest$/.test(p))).toBe(true);
    // The end-user's shard table (`episodes.sXXofYY__t`, see sharded-collection.ts).
    expect(fsynced.some((p) => /episodes(\.s\d+of\d+)?__t\.lance\/data$/.test(p))).toBe(true);
    expect(fsynced.some((p) => /episodes(\.s\d+of\d+)?__t\.lance$/.test(p))).toBe(true);
    expect(await syncedPaths("process")).toEqual([]);
  });
});
