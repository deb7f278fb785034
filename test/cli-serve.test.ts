import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentMem } from "../sdk/index.js";

/** Starts `agentmem serve` and resolves with its port once it logs SERVING. */
function serve(dir: string, extra: string[] = []): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["bin/agentmem.js", "serve", "--data", dir, "--port", "0", "--embedder", "hash", ...extra], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, AGENTMEM_API_KEYS: "" },
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === "SERVING" && entry.port) resolve({ child, port: entry.port });
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentmem-cli-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("agentmem serve", () => {
  it("serves, then finishes in-flight writes on SIGTERM and exits 0", async () => {
    const { child, port } = await serve(dir);
    const client = new AgentMem({ baseUrl: `http://127.0.0.1:${port}` });
    const items = Array.from({ length: 500 }, (_, i) => ({ scope: { user: "term" }, content: `turn ${i} of a long import` }));
    const pending = client.memory.rememberBatch({ items });
    await new Promise((r) => setTimeout(r, 30));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGTERM");
    const res = await pending;
    expect(res.memoryIds.length).toBe(500);
    expect(await exited).toBe(0);

    const again = await serve(dir);
    const list = await new AgentMem({ baseUrl: `http://127.0.0.1:${again.port}` }).memory.listMemories({ scope: { user: "term" }, pageSize: 1000 });
    expect(list.memories.length).toBe(500);
    again.child.kill("SIGTERM");
  });

  it("refuses a non-loopback address without API keys", async () => {
    const child = spawn(process.execPath, ["bin/agentmem.js", "serve", "--data", dir, "--host", "0.0.0.0", "--embedder", "hash"], {
      env: { ...process.env, AGENTMEM_API_KEYS: "" },
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(code).toBe(1);
    expect(stderr).toMatch(/refusing to listen on 0.0.0.0 without API keys/);
  });
});
