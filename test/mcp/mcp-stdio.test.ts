import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RealServer, startRealServer } from "../support/real-server.js";
import { ok, refused, runMcpContract } from "./mcp-contract.js";

const BIN = join(import.meta.dirname, "..", "..", "bin", "agentmem.js");
const WRITE = "write-key-0123456789abcdef";
const READ = "read-key-0123456789abcdef";

const open: Client[] = [];
const dirs: string[] = [];

/** `agentmem mcp …` as an MCP client would start it (the built CLI, logs on stderr). */
async function spawnMcp(args: string[]): Promise<Client> {
  const client = new Client({ name: "agentmem-test", version: "1.0.0" });
  const env = { ...process.env, AGENTMEM_LOG_LEVEL: "warn", AGENTMEM_API_KEYS: "", AGENTMEM_MCP_USER: "" } as Record<string, string>;
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp", ...args], env, stderr: "pipe" }));
  open.push(client);
  return client;
}

afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe("agentmem mcp over stdio", { timeout: 180_000 }, () => {
  describe("embedded store, the user bound by --user", () => {
    // One process for the whole contract: each spawn loads the store and the CLI anew.
    let shared: Client;
    beforeAll(async () => {
      const dir = await mkdtemp(join(tmpdir(), "agentmem-mcp-"));
      dirs.push(dir);
      shared = await spawnMcp(["--data", dir, "--embedder", "hash", "--user", "stdio_user"]);
      open.splice(open.indexOf(shared), 1);
    });
    afterAll(async () => shared?.close());
    runMcpContract(() => ({ connect: async () => ({ client: shared, args: {}, actsFor: "stdio_user" }) }));
  });

  it("without --user acts for `default` and offers no user argument", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentmem-mcp-"));
    dirs.push(dir);
    const client = await spawnMcp(["--data", dir, "--embedder", "hash"]);
    const { tools } = await client.listTools();
    expect(Object.keys(tools.find((t) => t.name === "remember")?.inputSchema.properties ?? {})).not.toContain("user");
    await ok(client, "remember", { text: "the default user likes chess" });
    const rel = (await client.readResource({ uri: "agentmem://users/default/profile" })).contents[0] as { text: string };
    expect(JSON.parse(rel.text).user).toBe("default");
  });

  it("stdout carries only JSON-RPC messages; the logs go to stderr", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentmem-mcp-"));
    dirs.push(dir);
    const child = spawn(process.execPath, [BIN, "mcp", "--data", dir, "--embedder", "hash"], {
      env: { ...process.env, AGENTMEM_LOG_LEVEL: "info", AGENTMEM_API_KEYS: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    const answered = async (id: number) => {
      while (!stdout.split("\n").some((l) => l.includes(`"id":${id}`))) await new Promise((r) => setTimeout(r, 50));
    };
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    await answered(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "remember", arguments: { text: "raw stdio check" } } });
    await answered(2);
    child.stdin.end();
    await new Promise((r) => child.once("exit", r));
    const lines = stdout.split("\n").filter((l) => l !== "");
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe("2.0");
    expect(lines.length).toBe(2);
    expect(stderr).toContain("agentmem.v1.MemoryService/Remember");
  });

  describe("--url: through a running server with a key", () => {
    let real: RealServer;
    beforeAll(async () => {
      real = await startRealServer({ apiKeys: `${WRITE}:acme:write,${READ}:acme:read` });
    });
    afterAll(async () => real?.close());

    it("remember then recall with a write key; a read key calling remember is refused", async () => {
      const writer = await spawnMcp(["--url", real.url, "--api-key", WRITE, "--user", "remote_user"]);
      const stored = await ok(writer, "remember", { text: "my daughter starts school in September" });
      const found = (await ok(writer, "recall", { query: "daughter school" })) as { hits: { id: string }[] };
      expect(found.hits[0].id).toBe(stored.memoryId);

      const reader = await spawnMcp(["--url", real.url, "--api-key", READ, "--user", "remote_user"]);
      expect(await refused(reader, "remember", { text: "a reader must not write" })).toMatchObject({ code: "PERMISSION_DENIED", reason: "ROLE_TOO_LOW" });
      const history = (await ok(reader, "history", {})) as { turns: { content: string }[] };
      expect(history.turns.map((t) => t.content)).toEqual(["my daughter starts school in September"]);
    });
  });
});
