import { execFileSync } from "node:child_process";
import { mkdtemp, rm, statfs, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHashEmbedder } from "../../src/adapters/embedders/hash-embedder.js";
import { isDiskFull } from "../../src/adapters/lancedb/disk-space.js";
import { loadConfig } from "../../src/config.js";
import { MemoryService } from "../../src/gen/agentmem/v1/memory_service_pb.js";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { type RunningServer, startServer } from "../../src/compose/start-server.js";

// A real full volume: a small tmpfs mounted for this test (needs root, as in CI's container;
// elsewhere the end-to-end case is skipped and only the error recognition runs).
let mountPoint = "";
let mounted = false;
let server: RunningServer | undefined;

beforeAll(async () => {
  mountPoint = await mkdtemp(join(tmpdir(), "agentmem-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", mountPoint], { stdio: "ignore" });
    mounted = true;
  } catch {
    mounted = false;
  }
});
afterAll(async () => {
  await server?.close().catch(() => undefined);
  if (mounted) execFileSync("umount", ["-l", mountPoint], { stdio: "ignore" });
  await rm(mountPoint, { recursive: true, force: true });
});

async function health(url: string): Promise<string> {
  const res = await fetch(`${url}/grpc.health.v1.Health/Check`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  return ((await res.json()) as { status: string }).status;
}

describe("a full data volume", { timeout: 120_000 }, () => {
  it("recognises the engine's out-of-space errors", () => {
    expect(isDiskFull(new Error("lance error: LanceError(IO): Unable to copy data to file: No space left on device (os error 28)"))).toBe(true);
    expect(isDiskFull(new Error("Disk quota exceeded (os error 122)"))).toBe(true);
    expect(isDiskFull(new Error("Retryable commit conflict for version 12"))).toBe(false);
  });

  it("answers UNAVAILABLE / DISK_FULL, turns health NOT_SERVING, and recovers once space is freed", async (ctx) => {
    if (!mounted) ctx.skip();
    const data = join(mountPoint, "data");
    const config = loadConfig({ data, port: 0, embedder: "hash" }, { AGENTMEM_API_KEYS: "", AGENTMEM_LOG_LEVEL: "silent", AGENTMEM_MAINTENANCE_SECONDS: "0" });
    server = await startServer(config, { embedder: createHashEmbedder(), logger: pino({ level: "silent" }) });
    const memory = createClient(MemoryService, createConnectTransport({ baseUrl: server.url, httpVersion: "1.1" }));
    await memory.remember({ scope: { user: "ada" }, content: "a first turn while there is room" });
    expect(await health(server.url)).toBe("SERVING");

    // Leave ~256 KiB free, then write until the engine runs out of space.
    const filler = join(mountPoint, "filler");
    const { bavail, bsize } = await statfs(mountPoint);
    await writeFile(filler, Buffer.alloc(Math.max(0, bavail * bsize - 256 * 1024)));
    let refused: ConnectError | undefined;
    for (let i = 0; i < 400 && !refused; i++) {
      await memory.remember({ scope: { user: "ada" }, content: `turn ${i} ${"words of a long turn ".repeat(400)}` }).catch((e: unknown) => (refused = ConnectError.from(e)));
    }
    expect(refused?.code).toBe(Code.Unavailable);
    expect(refused?.findDetails(ErrorInfoSchema)[0]?.reason).toBe("DISK_FULL");
    expect(await health(server.url)).toBe("NOT_SERVING");

    await rm(filler);
    const deadline = Date.now() + 10_000;
    while ((await health(server.url)) !== "SERVING" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await health(server.url)).toBe("SERVING");
    const after = await memory.remember({ scope: { user: "ada" }, content: "a turn after space came back" });
    expect(after.memoryId).not.toBe("");
    const texts = (await memory.listMemories({ scope: { user: "ada" }, pageSize: 1000 })).memories.map((m) => m.text);
    expect(texts).toContain("a turn after space came back");
  });
});
